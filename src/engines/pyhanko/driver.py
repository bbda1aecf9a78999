# PAdES signing and signature validation with pyHanko, run per job by src/engines/pyhanko/pyhanko.ts
# through the subprocess runner. Python only because pyHanko (PAdES, DocMDP, modification analysis)
# has no Node equivalent; every policy decision (limits, which TSA address) stays in TypeScript.
#
# argv: <sign|verify> <job-file>. The job file is JSON written 0600 by the adapter; it holds the
# PKCS#12 bundle and its password, which therefore never reach argv or the environment.
# stdout: one JSON line, the result. A refusal the adapter maps to a named error is
# {"error": "<class>"} with exit code 3; anything else is a crash (traceback on stderr, exit 1).
import asyncio
import base64
import http.client
import json
import socket
import ssl
import sys
from datetime import datetime

from asn1crypto import pem, pkcs12, tsp, x509
from cryptography.x509 import load_der_x509_certificate
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.misc import PdfReadError
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign import fields, signers
from pyhanko.sign.fields import MDPPerm
from pyhanko.sign.general import SigningError
from pyhanko.sign.timestamps import TimestampRequestError
from pyhanko.sign.timestamps.api import TimeStamper
from pyhanko.sign.validation import validate_pdf_signature, validate_pdf_timestamp
from pyhanko.sign.validation.errors import SignatureValidationError
from pyhanko.stamp import TextStampStyle
from pyhanko_certvalidator import ValidationContext

REFUSED = 3
CERTIFY = {'no_changes': MDPPerm.NO_CHANGES, 'form_filling': MDPPerm.FILL_FORMS,
           'annotations': MDPPerm.ANNOTATE}
CERTIFY_NAME = {v: k for k, v in CERTIFY.items()}
# A time-stamp authority answers in well under a second; a hung one must not hold the job.
TSA_TIMEOUT_S = 30
TSA_MAX_RESPONSE_BYTES = 1024 * 1024


class Refusal(Exception):
    """A failure the adapter names (wrong password, not a PKCS#12 …): reported, not a crash."""


class PinnedTimeStamper(TimeStamper):
    """
    RFC 3161 over HTTP(S) to the one address the adapter's SSRF guard resolved and approved: the
    name is never resolved here, so it cannot re-resolve to an internal address (DNS rebinding),
    and redirects are not followed. TLS is still verified against the URL's host name.
    """

    def __init__(self, spec):
        super().__init__()
        self.spec = spec

    def _connection(self):
        s = self.spec
        if s['scheme'] == 'http':
            return http.client.HTTPConnection(s['address'], s['port'], timeout=TSA_TIMEOUT_S)
        context = ssl.create_default_context()
        conn = http.client.HTTPSConnection(s['host'], s['port'], timeout=TSA_TIMEOUT_S, context=context)
        address = s['address']

        def connect():
            sock = socket.create_connection((address, s['port']), TSA_TIMEOUT_S)
            conn.sock = context.wrap_socket(sock, server_hostname=s['host'])
        conn.connect = connect
        return conn

    def _post(self, body):
        s = self.spec
        conn = self._connection()
        try:
            conn.request('POST', s['path'], body=body, headers={
                'Host': s['host_header'], 'Content-Type': 'application/timestamp-query',
                'Accept': 'application/timestamp-reply'})
            res = conn.getresponse()
            data = res.read(TSA_MAX_RESPONSE_BYTES + 1)
        except OSError as e:
            raise Refusal('timestamp_failed') from e
        finally:
            conn.close()
        if res.status != 200 or len(data) > TSA_MAX_RESPONSE_BYTES:
            raise Refusal('timestamp_failed')
        return data

    async def async_request_tsa_response(self, req):
        data = await asyncio.to_thread(self._post, req.dump())
        try:
            return tsp.TimeStampResp.load(data)
        except ValueError as e:
            raise Refusal('timestamp_failed') from e


def load_signer(bundle_b64, password):
    try:
        data = base64.b64decode(bundle_b64, validate=True)
        # Parsed first on its own: cryptography says "invalid password or PKCS12 data" for both.
        pfx = pkcs12.Pfx.load(data, strict=True)
        # asn1crypto parses lazily: reading the content is what rejects a malformed bundle.
        _ = pfx['auth_safe']['content'].native
    except ValueError as e:
        raise Refusal('invalid_certificate') from e
    try:
        return signers.SimpleSigner.load_pkcs12_data(data, other_certs=(), passphrase=password.encode())
    except ValueError as e:
        raise Refusal('invalid_password') from e


def stamp_style(text):
    if text is None:
        return TextStampStyle(stamp_text='Digitally signed by %(signer)s\n%(ts)s')
    # The caller's text is literal: pyHanko interpolates %(…)s in it.
    return TextStampStyle(stamp_text=text.replace('%', '%%'))


def free_field_name(reader):
    taken = {name for name, _, _ in fields.enumerate_sig_fields(reader, filled_status=None)}
    return next(f'Signature{n}' for n in range(1, len(taken) + 2) if f'Signature{n}' not in taken)


def metadata(job, field_name):
    certify = job.get('certify')
    return signers.PdfSignatureMetadata(
        field_name=field_name, reason=job.get('reason'), location=job.get('location'),
        contact_info=job.get('contact'), subfilter=fields.SigSeedSubFilter.PADES, md_algorithm='sha256',
        certify=certify is not None, **({'docmdp_permissions': CERTIFY[certify]} if certify else {}))


def sign(job):
    signer = load_signer(job['pkcs12'], job['password'])
    timestamper = PinnedTimeStamper(job['timestamp']) if job.get('timestamp') else None
    appearance = job.get('appearance')
    with open(job['input'], 'rb') as inf:
        writer = IncrementalPdfFileWriter(inf, strict=False)
        field_name = free_field_name(writer.prev)
        if appearance:
            if appearance['page'] > int(writer.root['/Pages']['/Count']):
                raise Refusal('page_out_of_range')
            fields.append_signature_field(writer, fields.SigFieldSpec(
                sig_field_name=field_name, on_page=appearance['page'] - 1, box=tuple(appearance['box'])))
        pdf_signer = signers.PdfSigner(
            metadata(job, field_name), signer=signer, timestamper=timestamper,
            stamp_style=stamp_style(appearance.get('text') if appearance else None))
        with open(job['output'], 'wb') as outf:
            try:
                pdf_signer.sign_pdf(writer, output=outf)
            except SigningError as e:
                # pyHanko refuses to certify a document that already carries a signature.
                if 'certif' in str(e).lower():
                    raise Refusal('certify_signed') from e
                raise
    cert = signer.signing_cert
    return {'field': field_name, 'signer': name_of(cert, 'subject'), 'level': 'B-T' if timestamper else 'B-B'}


def name_of(cert, which):
    """Common name and RFC 4514 distinguished name of a certificate's subject or issuer."""
    name = getattr(load_der_x509_certificate(cert.dump()), which)
    return {
        'common_name': getattr(cert, which).native.get('common_name'),
        'distinguished_name': name.rfc4514_string(),
    }


def iso(dt):
    return dt.isoformat().replace('+00:00', 'Z') if isinstance(dt, datetime) else None


def enum_name(value):
    return value.name.lower() if value is not None else None


def chain_status(status, has_roots):
    if getattr(status, 'revoked', False):
        return 'revoked'
    if not has_roots:
        return 'unknown'
    return 'trusted' if status.trusted else 'untrusted'


# Enough of pyHanko's reason for a report reader; it may quote names from the file, never secrets.
PROBLEM_MAX_CHARS = 300


def unverifiable(sig, error):
    """A signature pyHanko cannot evaluate (malformed CMS, mismatched signer): reported, not a crash."""
    try:
        cert = sig.signer_cert
        signer, issuer = name_of(cert, 'subject'), name_of(cert, 'issuer')
    except Exception:
        signer = issuer = None
    return {
        'field': sig.field_name,
        'kind': 'document_timestamp' if sig.sig_object_type == '/DocTimeStamp' else 'signature',
        'signer': signer, 'issuer': issuer, 'signing_time': None, 'timestamp': None,
        'integrity': {'digest_valid': None, 'signature_valid': False},
        'covers_whole_document': None, 'coverage': None, 'modifications': None, 'docmdp_ok': None,
        'certification': None, 'chain': 'unknown', 'md_algorithm': None, 'reason': None,
        'problem': str(error)[:PROBLEM_MAX_CHARS],
    }


def report(sig, context, has_roots):
    try:
        return evaluate(sig, context, has_roots)
    except (SignatureValidationError, ValueError) as e:
        return unverifiable(sig, e)


def evaluate(sig, context, has_roots):
    timestamp_only = sig.sig_object_type == '/DocTimeStamp'
    status = (validate_pdf_timestamp(sig, validation_context=context) if timestamp_only
              else validate_pdf_signature(sig, context))
    cert = status.signing_cert
    tsv = getattr(status, 'timestamp_validity', None)
    modification = getattr(status, 'modification_level', None)
    return {
        'field': sig.field_name,
        'kind': 'document_timestamp' if timestamp_only else 'signature',
        'signer': name_of(cert, 'subject'),
        'issuer': name_of(cert, 'issuer'),
        'signing_time': iso(
            getattr(status, 'signer_reported_dt', None) or getattr(status, 'timestamp', None)
        ),
        'timestamp': {'time': iso(tsv.timestamp), 'valid': bool(tsv.intact and tsv.valid)} if tsv else None,
        'integrity': {'digest_valid': bool(status.intact), 'signature_valid': bool(status.valid)},
        'covers_whole_document': status.coverage == status.coverage.ENTIRE_FILE,
        'coverage': enum_name(status.coverage),
        'modifications': 'other' if modification is None else {
            'NONE': 'none', 'LTA_UPDATES': 'none', 'FORM_FILLING': 'form_filling',
            'ANNOTATIONS': 'annotations'}.get(modification.name, 'other'),
        'docmdp_ok': getattr(status, 'docmdp_ok', None),
        'certification': CERTIFY_NAME.get(sig.docmdp_level) if sig.docmdp_level else None,
        'chain': chain_status(status, has_roots),
        'md_algorithm': status.md_algorithm,
        'reason': str(sig.sig_object['/Reason']) if '/Reason' in sig.sig_object else None,
        'problem': None,
    }


def load_roots(pems):
    roots = []
    for text in pems:
        try:
            for _, _, der in pem.unarmor(text.encode(), multiple=True):
                roots.append(x509.Certificate.load(der))
        except ValueError as e:
            raise Refusal('invalid_trust_root') from e
    return roots


def verify(job):
    roots = load_roots(job.get('trust_roots') or [])
    # No fetching: validation must not reach the network (CRLs, OCSP, AIA) from inside a job.
    context = ValidationContext(trust_roots=roots, allow_fetching=False, revocation_mode='soft-fail')
    with open(job['input'], 'rb') as inf:
        reader = PdfFileReader(inf, strict=False)
        return {'signatures': [report(sig, context, bool(roots)) for sig in reader.embedded_signatures]}


def main():
    command, job_file = sys.argv[1], sys.argv[2]
    with open(job_file, encoding='utf-8') as f:
        job = json.load(f)
    try:
        result = sign(job) if command == 'sign' else verify(job)
    except Refusal as e:
        print(json.dumps({'error': str(e)}))
        sys.exit(REFUSED)
    except PdfReadError:
        print(json.dumps({'error': 'pdf_corrupt'}))
        sys.exit(REFUSED)
    except TimestampRequestError:
        # The TSA answered, but with a rejection or a token that does not match the request.
        print(json.dumps({'error': 'timestamp_failed'}))
        sys.exit(REFUSED)
    print(json.dumps(result))


if __name__ == '__main__':
    main()
