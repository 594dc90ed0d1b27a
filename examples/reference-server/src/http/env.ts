/** What every request carries through the middleware: who is calling, and the request's id. */
import type { Principal } from '../users.js';

export type AppEnv = {
  Variables: {
    principal: Principal;
    requestId: string;
  };
};
