// Builds qpdf job JSON for encryption (qpdf manual, "QPDFJob JSON"): the whole job goes into a
// 0600 file so the passwords never reach argv. Pure, so the permission mapping is unit-tested.

export interface Permissions {
  print: boolean;
  print_high_res: boolean;
  modify: boolean;
  copy: boolean;
  annotate: boolean;
  fill_forms: boolean;
  accessibility: boolean;
  assemble: boolean;
}

export interface EncryptionSpec {
  userPassword: string;
  ownerPassword: string;
  algorithm: 'aes-256' | 'aes-128';
  permissions: Permissions;
}

const yn = (allowed: boolean) => (allowed ? 'y' : 'n');

/**
 * Catalogue permissions → qpdf's restriction flags (same for the 128- and 256-bit groups).
 * `modify` maps to `modifyOther` (changes other than annotating, filling forms and assembling,
 * which have their own flags); `print` without `print_high_res` is qpdf's "low".
 */
export function qpdfRestrictions(p: Permissions): Record<string, string> {
  return {
    print: p.print ? (p.print_high_res ? 'full' : 'low') : 'none',
    modifyOther: yn(p.modify),
    extract: yn(p.copy),
    annotate: yn(p.annotate),
    form: yn(p.fill_forms),
    accessibility: yn(p.accessibility),
    assemble: yn(p.assemble),
  };
}

export function encryptionJob(
  input: string,
  output: string,
  spec: EncryptionSpec,
  inputPassword?: string,
): Record<string, unknown> {
  const restrictions = qpdfRestrictions(spec.permissions);
  const group =
    spec.algorithm === 'aes-256'
      ? { '256bit': restrictions }
      : { '128bit': { ...restrictions, useAes: 'y' } };
  return {
    inputFile: input,
    outputFile: output,
    ...(inputPassword === undefined ? {} : { password: inputPassword }),
    encrypt: { userPassword: spec.userPassword, ownerPassword: spec.ownerPassword, ...group },
  };
}
