// The Durable Streams protocol's face (docs/durable-streams.md).
export {
  DS_REQUEST_HEADERS,
  DS_RESPONSE_HEADERS,
  type DsPluginOptions,
  dsPlugin,
} from "./plugin.ts";
