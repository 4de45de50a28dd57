import { HarnessVersions } from "./harness-versions";

export default function HarnessPage() {
  return (
    <main className="page wide">
      <h1>Harness</h1>
      <HarnessVersions />
    </main>
  );
}
