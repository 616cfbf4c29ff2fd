// undici's global dispatcher (what `fetch` and `request` use when given none), set for one test
// file: other files may share its process (scripts/file-bundle.ts), so the file puts back the
// one it replaced in its `after`.
import { type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from "undici";

/** Makes `dispatcher` the global one; the function returned puts the previous one back. */
export function useGlobalDispatcher(dispatcher: Dispatcher): () => void {
  const previous = getGlobalDispatcher();
  setGlobalDispatcher(dispatcher);
  return () => setGlobalDispatcher(previous);
}
