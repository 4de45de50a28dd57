import "server-only";

/** The one answer a 5xx gives: the request id finds the details in the server log. */
export function internalError(requestId: string): Response {
  return Response.json({ message: `internal error (request id ${requestId})`, requestId }, { status: 500, headers: { "x-request-id": requestId } });
}

export function forbidden(message: string): Response {
  return Response.json({ message }, { status: 403 });
}
