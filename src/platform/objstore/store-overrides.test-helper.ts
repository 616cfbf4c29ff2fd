// Test support: a store with some of its methods replaced (a test's delays, failures, lost
// answers), the others its own, bound to it.
import type { ObjectStore } from "./object-store.ts";

export function withMethods(store: ObjectStore, methods: Partial<ObjectStore>): ObjectStore {
  return new Proxy(store, {
    get(target, name) {
      const own = methods[name as keyof ObjectStore];
      if (own !== undefined) return own;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
