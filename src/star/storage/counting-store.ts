// The star's object store with its requests counted, for StarStats (object-store PUTs/s is the
// difference of two readings over their interval).
import type { ObjectStore } from "../../platform/objstore/index.ts";

export interface StoreCounts {
  puts: number;
  gets: number;
  deletes: number;
}

export function countingStore(store: ObjectStore): { store: ObjectStore; counts: StoreCounts } {
  const counts: StoreCounts = { puts: 0, gets: 0, deletes: 0 };
  const counted: ObjectStore = {
    bucket: store.bucket,
    put(key, body) {
      counts.puts++;
      return store.put(key, body);
    },
    get(key, range) {
      counts.gets++;
      return store.get(key, range);
    },
    getVersioned(key) {
      counts.gets++;
      return store.getVersioned(key);
    },
    putIf(key, body, condition) {
      counts.puts++;
      return store.putIf(key, body, condition);
    },
    list: (prefix, opts) => store.list(prefix, opts),
    listAll: (prefix, opts) => store.listAll(prefix, opts),
    delete(keys) {
      counts.deletes++;
      return store.delete(keys);
    },
    presignGet: (key, expires) => store.presignGet(key, expires),
    close: () => store.close(),
  };
  return { store: counted, counts };
}
