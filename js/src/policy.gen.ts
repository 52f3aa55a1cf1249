// Code generated from internal/guard (go generate ./internal/guard). DO NOT EDIT.
// The policy the shim applies before the wasm runs, as Go publishes it: see
// internal/guard/config.go (the attributes), internal/circuit (the stored
// circuit) and policy/cooldown (the stored 429 pauses).

/** How a value of a kind is checked: a whole number (each item of a comma-separated list) from min to max, or one of words. */
export interface Kind {
  readonly min: number;
  readonly max: number;
  readonly list: boolean;
  readonly words: readonly string[];
}

export const KIND_MILLIS: Kind = { min: 1, max: 9007199254740992, list: false, words: [] };
export const KIND_COUNT: Kind = { min: 1, max: 1000, list: false, words: [] };
export const KIND_STATUSES: Kind = { min: 100, max: 599, list: true, words: [] };
export const KIND_ON_OFF: Kind = { min: 0, max: 0, list: false, words: ["on", "off"] };
export const KIND_ON_OFF_ALWAYS: Kind = { min: 0, max: 0, list: false, words: ["on", "off", "always"] };
export const KIND_ON_OFF_CROSS_ORIGIN: Kind = { min: 0, max: 0, list: false, words: ["on", "off", "cross-origin"] };

/** Other spellings of a switch's words. */
export const ALIASES: Readonly<Record<string, string>> = {
  true: "on",
  false: "off",
};

/** A data-* attribute (Go names it in warnings): its dataset name, default and kind; capBy names the setting that caps it (an empty default stands for that one). */
export interface Setting {
  readonly name: string;
  readonly def: string;
  readonly kind: Kind;
  readonly capBy: string;
}

export const TTL_MS: Setting = { name: "ttlMs", def: "5000", kind: KIND_MILLIS, capBy: "maxTtlMs" };
export const MAX_TTL_MS: Setting = { name: "maxTtlMs", def: "120000", kind: KIND_MILLIS, capBy: "" };
export const TRIP_STATUSES: Setting = { name: "tripStatuses", def: "502,503,504", kind: KIND_STATUSES, capBy: "" };
export const TRIP_WINDOW_MS: Setting = { name: "tripWindowMs", def: "3000", kind: KIND_MILLIS, capBy: "" };
export const TRIP_MIN_FAILURES: Setting = { name: "tripMinFailures", def: "1", kind: KIND_COUNT, capBy: "" };
export const TRIP_BURST_MS: Setting = { name: "tripBurstMs", def: "250", kind: KIND_MILLIS, capBy: "" };
export const HALF_OPEN_MS: Setting = { name: "halfOpenMs", def: "", kind: KIND_MILLIS, capBy: "maxTtlMs" };
export const STALE: Setting = { name: "stale", def: "off", kind: KIND_ON_OFF, capBy: "" };
export const STALE_MAX_MS: Setting = { name: "staleMaxMs", def: "3600000", kind: KIND_MILLIS, capBy: "" };
export const COALESCE: Setting = { name: "coalesce", def: "on", kind: KIND_ON_OFF, capBy: "" };
export const NEGATIVE_CACHE: Setting = { name: "negativeCache", def: "on", kind: KIND_ON_OFF_ALWAYS, capBy: "" };
export const COOLDOWN: Setting = { name: "cooldown", def: "on", kind: KIND_ON_OFF, capBy: "" };
export const PROBE: Setting = { name: "probe", def: "on", kind: KIND_ON_OFF, capBy: "" };
export const IDEMPOTENCY: Setting = { name: "idempotency", def: "on", kind: KIND_ON_OFF_CROSS_ORIGIN, capBy: "" };
export const EMPTY_TTL: Setting = { name: "emptyTtl", def: "off", kind: KIND_ON_OFF, capBy: "" };
export const TIMEOUT_MS: Setting = { name: "timeoutMs", def: "0", kind: KIND_MILLIS, capBy: "" };

/** A setting's name: the data-* attribute as the DOMStringMap names it. */
export type SettingName = "ttlMs" | "maxTtlMs" | "tripStatuses" | "tripWindowMs" | "tripMinFailures" | "tripBurstMs" | "halfOpenMs" | "stale" | "staleMaxMs" | "coalesce" | "negativeCache" | "cooldown" | "probe" | "idempotency" | "emptyTtl" | "timeoutMs";

/** The options in force, one per setting: a switch is on unless "off" ("always" and "cross-origin" are on too), a list is its numbers. */
export interface Options {
  /** How long a trip arms the circuit. data-ttl-ms, default 5000. */
  ttlMs: number;
  /** The cap on every TTL, stored deadlines included. data-max-ttl-ms, default 120000. */
  maxTtlMs: number;
  /** The HTTP statuses that arm the circuit. data-trip-statuses, default 502,503,504. */
  tripStatuses: number[];
  /** The window in which tripMinFailures trip statuses arm. data-trip-window-ms, default 3000. */
  tripWindowMs: number;
  /** Trip statuses within the window, with no success between, that arm. data-trip-min-failures, default 1. */
  tripMinFailures: number;
  /** Requests sent this close together are one burst, in flight together for the trip rule. data-trip-burst-ms, default 250. */
  tripBurstMs: number;
  /** How long after the TTL the outage is remembered (one probe decides). data-half-open-ms, default data-max-ttl-ms. */
  halfOpenMs: number;
  /** Serve the last good copy of a GET when the gateway fails. Opt-in. data-stale, default off. */
  stale: boolean;
  /** How old a stale copy may be (a server's stale-if-error overrides). data-stale-max-ms, default 3600000. */
  staleMaxMs: number;
  /** Share identical in-flight GETs. data-coalesce, default on. */
  coalesce: boolean;
  /** Remember failed GETs for a while ("always": after every failure, not only after an outage). data-negative-cache, default on. */
  negativeCache: boolean;
  /** Pause a service after a 429. data-cooldown, default on. */
  cooldown: boolean;
  /** One half-open probe when the circuit's time is up. data-probe, default on. */
  probe: boolean;
  /** Idempotency keys on in-scope POST/PUT/PATCH/DELETE ("cross-origin": to other origins in scope too). data-idempotency, default on. */
  idempotency: boolean;
  /** Cache GETs that keep answering empty for longer (60 s after 3, 120 s after 5). Opt-in. data-empty-ttl, default off. */
  emptyTtl: boolean;
  /** A deadline for every in-scope request, until its answer's headers (a call's own `timeout` overrides it); 0: none. data-timeout-ms, default 0. */
  timeoutMs: number;
}

/** Every setting, in Go's order. */
export const SETTINGS: readonly Setting[] = [TTL_MS, MAX_TTL_MS, TRIP_STATUSES, TRIP_WINDOW_MS, TRIP_MIN_FAILURES, TRIP_BURST_MS, HALF_OPEN_MS, STALE, STALE_MAX_MS, COALESCE, NEGATIVE_CACHE, COOLDOWN, PROBE, IDEMPOTENCY, EMPTY_TTL, TIMEOUT_MS];

/** The stored circuit (circuit.Restore): its key, the longest payload read, the strikes counted at most. */
export const STORAGE_KEY = "gateway_circuit_v1";
export const MAX_PAYLOAD_LEN = 1024;
export const MAX_STRIKES = 16;
/** Present while the stored circuit's open period may still send its scout (circuit.ScoutKey): until Go runs, in-scope requests wait for it. */
export const SCOUT_KEY = "gateway_circuit_v1_scout";

/** The stored 429 pauses (cooldown.Restore): a Pauses frame (abi.gen.ts) under COOLDOWN_KEY; a line with more strikes is skipped; a pause is clamped to MAX_PAUSE_MS from now. */
export const COOLDOWN_KEY = "gateway_cooldown_v1";
export const MAX_STORED_STRIKES = 64;
export const MAX_PAUSE_MS = 1800000;

/** The idempotency ledger (idempotency.Ledger): forget() before Go runs removes it, so Go never reads a previous user's pending keys. */
export const LEDGER_KEY = "gateway_idempotency_v1";
/** The methods whose requests carry an Idempotency-Key (idempotency.Methods): until Go runs, the gate holds them for their key. */
export const KEYED_METHODS: readonly string[] = ["POST", "PUT", "PATCH", "DELETE"];

/** A deadline the app set (TIMEOUT_MS, a call's timeout): a request past it fails as TIMEOUT_STATUS (internal/guard DefaultTimeoutMs). */
export const TIMEOUT_STATUS = 504;
