// Route schemas become validators on a route's first request rather than when the app starts:
// Fastify's default compiles every route's schemas at ready (some 300 ms of a gateway's start,
// and of every test that builds an app), though a deployment or a test uses few of the routes.
// The validators are the ones Fastify would make (its Ajv compiler, with the app's ajv options).
import { AjvCompiler, type ValidatorFactory } from "@fastify/ajv-compiler";

type Compile = ReturnType<ValidatorFactory>;
type Validate = ReturnType<Compile>;

// One pool for the process: apps with the same shared schemas and Ajv options (every app a
// process builds: tests build hundreds) share one Ajv instance, whose making (about 100 ms: it
// compiles the JSON Schema meta-schema) and compiled schemas are then paid once.
const fromPool = AjvCompiler();

/** Makes Fastify's validators, each when its route first needs it. */
export const lazyValidators: ValidatorFactory = (externalSchemas, options) => {
  let compiler: Compile | undefined;
  return (route) => {
    let validate: Validate | undefined;
    const lazy = ((...args: Parameters<Validate>) => {
      compiler ??= fromPool(externalSchemas, options);
      validate ??= compiler(route);
      const result = validate(...args);
      // Fastify reads a failed validation's errors from the function it called.
      lazy.errors = validate.errors;
      return result;
    }) as Validate;
    return lazy;
  };
};
