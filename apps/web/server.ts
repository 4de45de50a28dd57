// The dashboard's HTTP server: `next start` behind one boundary that decides who the client is.
// Next.js keeps a client's own X-Forwarded-For and X-Forwarded-Proto as they come, so rate limits,
// the Origin check and the Secure cookie would all believe whatever a caller writes there. Here
// every forwarding header is replaced by what the socket says, or by what a proxy listed in
// EVO_TRUSTED_PROXIES says, before Next.js sees the request.
import { createServer } from "node:http";
import { TLSSocket } from "node:tls";
import { parseArgs } from "node:util";
import next from "next";
import { FORWARDING_HEADERS, parseTrustedProxies, resolveForwarded } from "./src/server/forwarded.ts";

const { values } = parseArgs({ options: { port: { type: "string", default: "3000" }, hostname: { type: "string", default: "127.0.0.1" } } });
const port = Number(values.port);
const hostname = values.hostname;
const trusted = parseTrustedProxies(process.env.EVO_TRUSTED_PROXIES);

const app = next({ dev: false, dir: import.meta.dirname, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

createServer((req, res) => {
  const forwarded = resolveForwarded({ remoteAddress: req.socket.remoteAddress, encrypted: req.socket instanceof TLSSocket, headers: req.headers }, trusted);
  for (const name of FORWARDING_HEADERS) delete req.headers[name];
  req.headers["x-forwarded-for"] = forwarded.client;
  req.headers["x-forwarded-proto"] = forwarded.proto;
  if (forwarded.host) req.headers["x-forwarded-host"] = forwarded.host;
  // Only a browser that reached the site over https may be told to never use plain http again.
  if (forwarded.proto === "https") res.setHeader("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  void handle(req, res);
}).listen(port, hostname, () => console.log(`EvoTrainer dashboard on http://${hostname}:${port}`));
