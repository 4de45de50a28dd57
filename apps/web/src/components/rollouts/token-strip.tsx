import { fmtNumber } from "../format";
import { visiblePiece } from "./visible-piece";

type Tokens = { logprobs: number[]; entropies?: number[]; pieces?: string[] };

/** Log-prob 0 (certain) is clear; −5 and below is fully red (the legend under the strip says so). */
const heat = (logprob: number) => Math.min(1, Math.max(0, -logprob / 5));

/**
 * The completion token by token, each shaded by how unlikely the training policy found it: a heat
 * strip where the policy hesitated, guessed or was sure. Hover a token for its numbers.
 */
export function TokenStrip({ tokens, imported }: { tokens: Tokens | null; imported: boolean }) {
  if (!tokens) {
    return (
      <p className="muted" data-testid="tokens-absent">
        {imported
          ? "Not recorded for this rollout (imported data has no per-token log-probs)."
          : "Not recorded for this rollout: its trainer did not record per-token log-probs (the TRL wrapper records them at training time)."}
      </p>
    );
  }
  const mean = tokens.logprobs.reduce((a, b) => a + b, 0) / tokens.logprobs.length;
  return (
    <div data-testid="token-strip">
      <p className="muted">
        {tokens.logprobs.length} tokens · mean log-prob {fmtNumber(mean)} · min {fmtNumber(Math.min(...tokens.logprobs))}
        {tokens.entropies ? ` · mean entropy ${fmtNumber(tokens.entropies.reduce((a, b) => a + b, 0) / tokens.entropies.length)}` : " · entropy not recorded"}
      </p>
      <div className="token-strip" role="img" aria-label={`Per-token log-probabilities of ${tokens.logprobs.length} tokens, mean ${fmtNumber(mean)}`}>
        {tokens.logprobs.map((lp, i) => {
          const piece = tokens.pieces?.[i];
          const entropy = tokens.entropies?.[i];
          return (
            <span
              key={i}
              className={piece === undefined ? "token-cell" : "token-piece"}
              data-testid="token"
              style={{ background: `rgba(218, 54, 51, ${heat(lp).toFixed(2)})` }}
              title={`${piece === undefined ? `token ${i + 1}` : JSON.stringify(piece)} · log-prob ${fmtNumber(lp)}${entropy === undefined ? "" : ` · entropy ${fmtNumber(entropy)}`}`}
            >
              {piece === undefined ? "" : visiblePiece(piece)}
            </span>
          );
        })}
      </div>
      <p className="muted token-legend">
        shade: log-prob 0 <span className="token-scale" aria-hidden="true" /> −5 or below · hover a token for its text and numbers
      </p>
    </div>
  );
}
