import { observeService, type OutagePlan, type ServiceName, type ServiceObservation, type ServiceState } from "./service-outage.ts";

/**
 * One process's view of one service, shared by every pool, client and probe it has to that service,
 * so that an outage seen by all of them is said once, and its end once.
 */
export class ServiceStatus {
  private current: ServiceState = { reachable: true };

  constructor(
    readonly service: ServiceName,
    readonly where: string,
    private readonly plan: OutagePlan,
    private readonly say: (line: string) => void,
  ) {}

  get state(): ServiceState {
    return this.current;
  }

  observe(observation: ServiceObservation): void {
    const { state, line } = observeService(this.service, this.where, this.current, observation, this.plan);
    this.current = state;
    if (line) this.say(line);
  }

  down(reason: string): void {
    this.observe({ ok: false, reason });
  }

  up(): void {
    this.observe({ ok: true });
  }
}
