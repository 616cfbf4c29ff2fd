// The one place where a failure from the star fleet (or anything else a route or session caught)
// becomes the contract's HttpError. No Fastify here: routes, the Fastify error handler, SSE and
// NDJSON sessions all call toHttpError.
import { connectionBroken, FleetError, StarCallError } from "../upstream/index.ts";
import {
  fromGrpcError,
  type GrpcErrorContext,
  HttpError,
  internal,
  unavailable,
} from "./errors.ts";

export function toHttpError(err: unknown, ctx: GrpcErrorContext = {}): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof StarCallError) {
    if (connectionBroken(err)) {
      return unavailable(`the connection to the star broke during ${err.method}; retry`, {
        outcomeUnknown: err.outcomeUnknown,
      });
    }
    return fromGrpcError(err, { ...ctx, outcomeUnknown: err.outcomeUnknown });
  }
  if (err instanceof FleetError) return unavailable(err.message);
  return internal(err);
}
