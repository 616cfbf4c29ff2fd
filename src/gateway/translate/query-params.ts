// Query-string parameters as Fastify hands them over: a string, an array when repeated, or absent.
import { badQuery } from "../errors/index.ts";

/** Fastify's `req.query`. */
export type Query = Readonly<Record<string, unknown>>;

/** One parameter's single value; a repeated parameter is ambiguous and refused. */
export function queryParam(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || typeof value === "string") return value;
  if (Array.isArray(value)) throw badQuery(name, "is given more than once");
  throw badQuery(name, "must be a single string value");
}
