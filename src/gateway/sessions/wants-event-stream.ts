// Which reads are subscriptions: the same URL reads a JSON page or, asked for an event stream,
// streams Server-Sent Events (an EventSource asks so; curl and fetch by a header).

/**
 * Whether `Accept` names text/event-stream, in any case, with a q above 0. A range (`text/*`,
 * or any type) does not subscribe: a client that takes anything reads a page.
 */
export function wantsEventStream(accept: string | undefined): boolean {
  // Most reads name no event stream: no parse for them.
  if (accept === undefined || !/event-stream/i.test(accept)) return false;
  return accept.split(",").some((range) => {
    const [type = "", ...params] = range.split(";").map((part) => part.trim());
    if (type.toLowerCase() !== "text/event-stream") return false;
    const q = params.find((param) => /^q\s*=/i.test(param));
    return q === undefined || Number(q.slice(q.indexOf("=") + 1).trim()) > 0;
  });
}
