// The AcroForm as the form tools see it, read from bounded qpdf JSON: the `acroform` key (one entry
// per widget) plus the few objects it names (widgets, their fields, the catalog and the form).

import type { EngineCallOptions } from '../../engines/call-options.js';
import type { Qpdf } from '../../engines/qpdf/qpdf.js';
import { QuireError } from '../../errors/quire-error.js';

/** One widget as qpdf's `acroform` JSON key lists it (qpdf manual, "qpdf JSON", acroform). */
export interface QpdfWidgetField {
  fullname: string;
  fieldtype: string;
  fieldflags: number;
  value: unknown;
  object: string;
  parent: string | null;
  choices: string[];
  pageposfrom1: number;
  annotation: { object: string; appearancestate: string };
}

interface QpdfAcroform {
  acroform: { fields: QpdfWidgetField[]; hasacroform: boolean };
}

type QpdfObjects = { qpdf: [{ maxobjectid: number }, Record<string, { value?: unknown }>] };

export type Dict = Record<string, unknown>;
export type FieldType = 'text' | 'checkbox' | 'radio' | 'choice' | 'signature' | 'button';

export interface FormField {
  name: string;
  type: FieldType;
  /** Text and choices: the string; checkboxes and radios: the state name (`Off` when unset). */
  value: string | string[] | null;
  /** Choices: the listed values; checkboxes and radios: their "on" state names. */
  options?: string[];
  required: boolean;
  read_only: boolean;
  widgets: Array<{ page: number; rect: number[] | null }>;
  /** Where /V lives: the terminal field object (the widget itself when field and widget merge). */
  fieldObject: string;
  widgetObjects: string[];
  /** Choices whose /Ff allows typing a value not in the list (PDF 32000-1, 12.7.4.4, Edit flag). */
  editable: boolean;
}

export interface Form {
  fields: FormField[];
  /** Every object read, by reference ("12 0 R"), for building updates. */
  objects: Map<string, Dict>;
  /** The object holding the form dictionary: the /AcroForm object, or the catalog when it is direct. */
  formHolder: { ref: string; direct: boolean };
  maxObjectId: number;
  xfaOnly: boolean;
}

/** A form larger than any real one; bounds the argv and the JSON qpdf hands back. */
export const MAX_WIDGETS = 5_000;

// Field flags, PDF 32000-1 tables 221, 226 and 228.
const FF_READ_ONLY = 1;
const FF_REQUIRED = 2;
const FF_RADIO = 1 << 15;
const FF_PUSHBUTTON = 1 << 16;
const FF_EDIT = 1 << 18;

function fieldType(widget: QpdfWidgetField): FieldType {
  switch (widget.fieldtype) {
    case '/Tx':
      return 'text';
    case '/Ch':
      return 'choice';
    case '/Sig':
      return 'signature';
    default:
      if (widget.fieldflags & FF_PUSHBUTTON) return 'button';
      return widget.fieldflags & FF_RADIO ? 'radio' : 'checkbox';
  }
}

/** A qpdf JSON scalar as text: `u:` Unicode strings, `/Name`s, and nothing for streams or refs. */
export function jsonText(value: unknown): string | null {
  if (typeof value !== 'string') return typeof value === 'number' ? String(value) : null;
  if (value.startsWith('u:')) return value.slice(2);
  if (value.startsWith('/')) return value.slice(1);
  if (value.startsWith('b:')) return Buffer.from(value.slice(2), 'hex').toString('latin1');
  return null;
}

function fieldValue(value: unknown): string | string[] | null {
  if (Array.isArray(value)) return value.map(jsonText).filter((v): v is string => v !== null);
  return jsonText(value);
}

/** The "on" appearance states of a widget: the keys of /AP /N other than /Off. */
export function onStates(widget: Dict | undefined): string[] {
  const normal = (widget?.['/AP'] as Dict | undefined)?.['/N'];
  if (normal === null || typeof normal !== 'object') return [];
  return Object.keys(normal as Dict)
    .filter((k) => k !== '/Off')
    .map((k) => k.slice(1));
}

async function readObjects(qpdf: Qpdf, input: string, refs: readonly string[], call: EngineCallOptions) {
  const json = (await qpdf.json(input, ['qpdf'], call, refs)) as QpdfObjects;
  const objects = new Map<string, Dict>();
  for (const [key, entry] of Object.entries(json.qpdf[1])) {
    const ref = key === 'trailer' ? 'trailer' : key.replace(/^obj:/, '');
    if (entry.value && typeof entry.value === 'object') objects.set(ref, entry.value as Dict);
  }
  return { objects, maxObjectId: json.qpdf[0].maxobjectid };
}

function groupFields(widgets: readonly QpdfWidgetField[], objects: Map<string, Dict>): FormField[] {
  const byName = new Map<string, FormField>();
  for (const w of widgets) {
    const dict = objects.get(w.annotation.object);
    const type = fieldType(w);
    const rect = dict?.['/Rect'];
    const place = { page: w.pageposfrom1, rect: Array.isArray(rect) ? (rect as number[]) : null };
    const existing = byName.get(w.fullname);
    if (existing) {
      existing.widgets.push(place);
      existing.widgetObjects.push(w.annotation.object);
      if (type === 'checkbox' || type === 'radio') {
        existing.options = [...new Set([...(existing.options ?? []), ...onStates(dict)])];
      }
      continue;
    }
    const merged = dict?.['/T'] !== undefined || w.parent === null;
    const buttons = type === 'checkbox' || type === 'radio';
    const options = buttons ? onStates(dict) : type === 'choice' ? w.choices : undefined;
    byName.set(w.fullname, {
      name: w.fullname,
      type,
      value: fieldValue(w.value) ?? (buttons ? 'Off' : null),
      ...(options ? { options } : {}),
      required: (w.fieldflags & FF_REQUIRED) !== 0,
      read_only: (w.fieldflags & FF_READ_ONLY) !== 0,
      widgets: [place],
      fieldObject: merged ? w.object : (w.parent ?? w.object),
      widgetObjects: [w.annotation.object],
      editable: type === 'choice' && (w.fieldflags & FF_EDIT) !== 0,
    });
  }
  return [...byName.values()];
}

/** Reads the form of `input`: its fields, the objects behind them and whether it is XFA only. */
export async function readForm(qpdf: Qpdf, input: string, call: EngineCallOptions): Promise<Form> {
  const { acroform } = (await qpdf.json(input, ['acroform'], call)) as QpdfAcroform;
  if (acroform.fields.length > MAX_WIDGETS) {
    throw new QuireError(
      'limit_form_fields_exceeded',
      `The form has ${acroform.fields.length} field widgets; at most ${MAX_WIDGETS} are read.`,
    );
  }
  const trailer = (await readObjects(qpdf, input, ['trailer'], call)).objects.get('trailer');
  const rootRef = String(trailer?.['/Root'] ?? '');
  const refs = new Set<string>([rootRef]);
  for (const w of acroform.fields) {
    refs.add(w.annotation.object);
    refs.add(w.object);
    if (w.parent) refs.add(w.parent);
  }
  const { objects, maxObjectId } = await readObjects(qpdf, input, [...refs], call);
  const formRef = objects.get(rootRef)?.['/AcroForm'];
  let formHolder = { ref: rootRef, direct: true };
  if (typeof formRef === 'string') {
    const more = await readObjects(qpdf, input, [formRef], call);
    for (const [ref, value] of more.objects) objects.set(ref, value);
    formHolder = { ref: formRef, direct: false };
  }
  const form = formDict({ objects, formHolder } as Form);
  const root = objects.get(rootRef) ?? {};
  const xfaOnly =
    form?.['/XFA'] !== undefined && (acroform.fields.length === 0 || root['/NeedsRendering'] === true);
  return { fields: groupFields(acroform.fields, objects), objects, formHolder, maxObjectId, xfaOnly };
}

/** The form dictionary itself, wherever it lives. */
export function formDict(form: Pick<Form, 'objects' | 'formHolder'>): Dict | undefined {
  const holder = form.objects.get(form.formHolder.ref);
  return form.formHolder.direct ? (holder?.['/AcroForm'] as Dict | undefined) : holder;
}

export function refuseXfaOnly(form: Form): void {
  if (form.xfaOnly) {
    throw new QuireError(
      'xfa_not_supported',
      'The form is an XFA form (dynamic, rendered by the viewer) without usable AcroForm fields',
    );
  }
}

/** What the form tools publish of a field (the object references stay internal). */
export function publicField(field: FormField) {
  const { fieldObject: _f, widgetObjects: _w, editable: _e, ...shown } = field;
  return shown;
}
