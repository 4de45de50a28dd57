import type { ImportSink } from "./import-sink.ts";
import { localImportSink } from "./local-import-sink.ts";
import { remoteCredentials } from "./remote/credentials.ts";
import { remoteImportSink } from "./remote/remote-import-sink.ts";

/** The server the CLI is logged in to, else this machine's database. */
export function openImportSink(): ImportSink {
  const remote = remoteCredentials();
  return remote ? remoteImportSink(remote) : localImportSink();
}
