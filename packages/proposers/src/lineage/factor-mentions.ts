// How people name factors in veto reasons and revision notes, beyond the factor id itself.
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  "algo.lr": ["learning rate", "lr"],
  "algo.clip.high": ["clip higher", "clip high", "upper clip"],
  "algo.clip.low": ["clip low", "lower clip"],
  "algo.groupSize": ["group size"],
  "algo.temperature": ["temperature"],
  "algo.maxResponseTokens": ["token budget", "response length", "max response tokens", "length limit"],
  "algo.entropyCoef": ["entropy bonus", "entropy coefficient"],
  "algo.kl.coef": ["kl coefficient"],
  "reward.overlong": ["overlong shaping", "overlong penalty"],
  "data.dynamicSampling": ["dynamic sampling"],
  "data.overlongFilter": ["overlong filter"],
  "data.curriculum": ["curriculum"],
};

// camelCase, snake_case, kebab-case and punctuation all become single spaces between lower-case
// words; dots stay inside factor ids ("algo.lr") but not at the end of a sentence.
function normalize(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, " ")
    .replace(/\.+(?= |$)/g, "")
    .trim();
}

function aliases(factor: string): string[] {
  const out = [factor, ...(ALIASES[factor] ?? [])];
  const component = /^reward\.components\.([^.]+)\.weight$/.exec(factor)?.[1];
  if (component) out.push(...["weight", "penalty", "reward", "component"].map((w) => `${component} ${w}`));
  const flag = /^env\.([^.]+)$/.exec(factor)?.[1];
  if (flag) out.push(flag);
  return out.map(normalize);
}

/** Whether free text (a veto reason, a revision note) names this factor. */
export function mentionsFactor(text: string, factor: string): boolean {
  const t = ` ${normalize(text)} `;
  return aliases(factor).some((a) => t.includes(` ${a} `));
}
