import { ApiKeysPanel } from "./api-keys-panel";

export default function ApiKeysPage() {
  return (
    <main className="page wide">
      <h1>API keys</h1>
      <p className="muted">
        A key acts as you, with your roles, for the CLI (<code>evotrainer login &lt;this dashboard&apos;s URL&gt; --key …</code>) and for scripts. It is shown once; only its first characters are kept.
      </p>
      <ApiKeysPanel />
    </main>
  );
}
