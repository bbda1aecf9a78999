// Turns {field name: value} into a qpdf JSON v2 update of the form: /V on each field, /AS on each
// checkbox and radio widget, and /NeedAppearances so qpdf regenerates text and choice appearances.
import { QuireError } from '../../errors/quire-error.js';
import { type Dict, type Form, type FormField, formDict, onStates } from '../shared/form-model.js';

export type FillValue = string | boolean;

export interface FieldProblem {
  name: string;
  reason: string;
}

/** How many problems a failed job lists; the count is always complete. */
const MAX_LISTED = 50;

/** The checkbox or radio state `value` selects, or a reason it selects none. */
function buttonState(field: FormField, value: FillValue): string | FieldProblem {
  const states = field.options ?? [];
  if (value === false) return 'Off';
  if (value === true) {
    if (field.type === 'checkbox' && states.length === 1) return states[0]!;
    return { name: field.name, reason: `needs one of its values: ${states.join(', ')}` };
  }
  if (value === 'Off' || states.includes(value)) return value;
  return { name: field.name, reason: `is not one of its values: ${states.join(', ')}` };
}

/** The new /V of `field` (qpdf JSON: `u:` text, `/Name` state), or why `value` does not fit it. */
function newValue(field: FormField, value: FillValue): string | FieldProblem {
  switch (field.type) {
    case 'text':
      return typeof value === 'string' ? `u:${value}` : { name: field.name, reason: 'needs a string' };
    case 'choice': {
      if (typeof value !== 'string') return { name: field.name, reason: 'needs a string' };
      const listed = field.options ?? [];
      if (field.editable || listed.length === 0 || listed.includes(value)) return `u:${value}`;
      return { name: field.name, reason: `is not one of its options: ${listed.join(', ')}` };
    }
    case 'checkbox':
    case 'radio': {
      const state = buttonState(field, value);
      return typeof state === 'string' ? `/${state}` : state;
    }
    default:
      return { name: field.name, reason: `is a ${field.type} field, which cannot be filled` };
  }
}

function edit(objects: Map<string, Dict>, edited: Map<string, Dict>, ref: string): Dict {
  const current = edited.get(ref) ?? { ...(objects.get(ref) ?? {}) };
  edited.set(ref, current);
  return current;
}

function setField(form: Form, edited: Map<string, Dict>, field: FormField, v: string): void {
  const dict = edit(form.objects, edited, field.fieldObject);
  dict['/V'] = v;
  // A rich-text value (/RV) or selected indices (/I) would contradict the new /V in some viewers.
  delete dict['/RV'];
  delete dict['/I'];
  if (field.type !== 'checkbox' && field.type !== 'radio') return;
  for (const ref of field.widgetObjects) {
    const widget = edit(form.objects, edited, ref);
    widget['/AS'] = onStates(form.objects.get(ref)).includes(v.slice(1)) ? v : '/Off';
  }
}

/**
 * The update setting `values`; a name that is not a field, or a value that does not fit its field,
 * fails the job listing them all (the field names are only known once the file is open).
 */
export function fillUpdate(form: Form, values: Record<string, FillValue>): unknown {
  const byName = new Map(form.fields.map((f) => [f.name, f]));
  const problems: FieldProblem[] = [];
  const edited = new Map<string, Dict>();
  for (const [name, value] of Object.entries(values)) {
    const field = byName.get(name);
    const v = field ? newValue(field, value) : { name, reason: 'is not a field of this form' };
    if (typeof v === 'string') setField(form, edited, field!, v);
    else problems.push(v);
  }
  if (problems.length > 0) {
    const listed = problems.slice(0, MAX_LISTED);
    const more = problems.length - listed.length;
    const detail = listed.map((p) => `"${p.name}" ${p.reason}`).join('; ');
    throw new QuireError('form_fields_invalid', more > 0 ? `${detail}; and ${more} more` : detail);
  }
  const holder = edit(form.objects, edited, form.formHolder.ref);
  // XFA data would override the AcroForm values in viewers that read XFA (hybrid forms).
  const acroform: Dict = { ...(formDict(form) ?? {}), '/NeedAppearances': true };
  delete acroform['/XFA'];
  if (form.formHolder.direct) holder['/AcroForm'] = acroform;
  else edited.set(form.formHolder.ref, acroform);
  const header = {
    jsonversion: 2,
    pushedinheritedpageresources: false,
    calledgetallpages: false,
    maxobjectid: form.maxObjectId,
  };
  const objects = Object.fromEntries([...edited].map(([ref, value]) => [`obj:${ref}`, { value }]));
  return { qpdf: [header, objects] };
}
