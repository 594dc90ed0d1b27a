// The one list of test projects. Vitest 4 no longer discovers this file by itself, so
// vitest.config.ts imports it into `test.projects`; add a package here to have its tests run.
export const testProjects: string[] = ['packages/*', 'examples/*'];

export default testProjects;
