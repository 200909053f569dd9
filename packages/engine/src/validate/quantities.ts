const BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  ki: 2 ** 10,
  kib: 2 ** 10,
  mi: 2 ** 20,
  mib: 2 ** 20,
  gi: 2 ** 30,
  gib: 2 ** 30,
  ti: 2 ** 40,
  tib: 2 ** 40,
};

const QUANTITY = /^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)(\/s)?$/;

/** Parses `512MB`, `4Gi`, `1.5 GB` into bytes; `undefined` when the unit is unknown. */
export function parseBytes(text: string): number | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match || match[3]) return undefined;
  const unit = BYTE_UNITS[match[2]!.toLowerCase()];
  return unit === undefined ? undefined : Number(match[1]) * unit;
}

/** Parses `10MB/s` into bytes per second; `undefined` when it is not a rate. */
export function parseByteRate(text: string): number | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match || !match[3]) return undefined;
  const unit = BYTE_UNITS[match[2]!.toLowerCase()];
  return unit === undefined ? undefined : Number(match[1]) * unit;
}

/** Parses CPU cores: `0.5`, `2`, or millicores `500m`; `undefined` when malformed. */
export function parseCpu(text: string): number | undefined {
  const match = /^([0-9]+(?:\.[0-9]+)?)(m?)$/.exec(text.trim());
  if (!match) return undefined;
  return match[2] === 'm' ? Number(match[1]) / 1000 : Number(match[1]);
}
