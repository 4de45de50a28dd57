import { describe, expect, it } from "vitest";
import { crossSiteWrite } from "./same-origin";

const h = (headers: Record<string, string>) => new Headers(headers);

describe("crossSiteWrite", () => {
  it("accepts the site's own origin, as configured or as addressed", () => {
    expect(crossSiteWrite("POST", h({ origin: "https://evo.example", cookie: "s=1", host: "10.0.0.1:3000" }), "https://evo.example/")).toBeNull();
    expect(crossSiteWrite("POST", h({ origin: "http://evo:3000", cookie: "s=1", host: "evo:3000", "x-forwarded-host": "evo:3000", "x-forwarded-proto": "http" }), undefined)).toBeNull();
  });

  it("refuses another origin, a null origin and cookies without an origin", () => {
    expect(crossSiteWrite("POST", h({ origin: "http://evil.example", host: "evo:3000" }), undefined)).toMatch(/evil.example/);
    expect(crossSiteWrite("POST", h({ origin: "http://evo:3000", cookie: "s=1" }), "https://evo.example")).toMatch(/is not https:\/\/evo.example/);
    expect(crossSiteWrite("POST", h({ origin: "null", cookie: "s=1", host: "evo:3000" }), undefined)).not.toBeNull();
    expect(crossSiteWrite("POST", h({ cookie: "s=1", host: "evo:3000" }), undefined)).toMatch(/no Origin/);
  });

  it("accepts a null origin only where the browser says the post came from this origin (a form under no-referrer)", () => {
    expect(crossSiteWrite("POST", h({ origin: "null", "sec-fetch-site": "same-origin", host: "evo:3000" }), undefined)).toBeNull();
    expect(crossSiteWrite("POST", h({ origin: "null", "sec-fetch-site": "cross-site", cookie: "s=1", host: "evo:3000" }), undefined)).toMatch(/Origin null/);
    expect(crossSiteWrite("POST", h({ origin: "null", "sec-fetch-site": "same-site", cookie: "s=1", host: "evo:3000" }), undefined)).toMatch(/Origin null/);
  });

  it("lets reads and cookie-less callers through", () => {
    expect(crossSiteWrite("GET", h({ origin: "http://evil.example" }), undefined)).toBeNull();
    expect(crossSiteWrite("POST", h({ authorization: "Bearer evo_x", host: "evo:3000" }), undefined)).toBeNull();
  });
});
