// Numbers as people read them.
export function bytes(n: number): string {
  if (!Number.isFinite(n)) return '?';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${n} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
