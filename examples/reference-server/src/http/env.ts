/** What every request carries through the middleware: who is calling, and the request's id. */
import type { Principal } from '../users.js';
import type { RequestDeadline } from './deadline.js';

export type AppEnv = {
  Variables: {
    principal: Principal;
    requestId: string;
    /** The request timeout's deadline, for the request's writes (http/deadline.ts). */
    deadline: RequestDeadline;
  };
};
