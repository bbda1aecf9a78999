# One long-lived LibreOffice instance and a tiny request server in front of it, started by
# src/engines/office-pool.ts through the subprocess runner (own process group, limits, network
# namespace). Python only because LibreOffice's UNO API has no Node binding; all policy (time
# limits, recycling, which files) stays in TypeScript.
#
# argv: <profile-dir> <socket-path>. Protocol on the Unix socket: one JSON request line
# {"input", "output", "landscape", "password"?, "accessibility"?} -> one JSON reply line {"ok": true} or
# {"ok": false, "error": "<class>", "detail": "..."}. Prints "ready" on stdout once UNO answers.
# The password of an encrypted document comes only this way (the socket is 0600), never in argv.
import json
import mmap
import os
import socket
import subprocess
import sys
import time
import zipfile

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.lang import IllegalArgumentException

PROFILE, SOCKET_PATH = sys.argv[1], sys.argv[2]
PIPE_NAME = 'quire-' + str(os.getpid())
# Generous: a cold profile on a loaded 2-core host takes a few seconds to answer.
CONNECT_TIMEOUT_S = 60
# com.sun.star.document.MacroExecMode.NEVER_EXECUTE / UpdateDocMode.NO_UPDATE: documents can neither
# run macros nor refresh links (which would fetch external content).
NEVER_EXECUTE = 0
NO_UPDATE = 0
EXPORT_FILTER = {'text': 'writer_pdf_Export', 'sheet': 'calc_pdf_Export', 'slides': 'impress_pdf_Export'}
# Import filters chosen by the bytes' sniffed type, never by LibreOffice guessing from a name.
IMPORT_FILTER = {'.txt': 'Text (encoded)', '.csv': 'Text - txt - csv (StarCalc)'}
IMPORT_OPTIONS = {'.txt': 'UTF8,LF,,,', '.csv': '44,34,76,1'}


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def start_office():
    return subprocess.Popen([
        'soffice', '--headless', '--invisible', '--nologo', '--norestore', '--nodefault',
        '--nolockcheck', '--nofirststartwizard', f'-env:UserInstallation={uno.systemPathToFileUrl(PROFILE)}',
        f'--accept=pipe,name={PIPE_NAME};urp;StarOffice.ComponentContext',
    ], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def connect():
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext('com.sun.star.bridge.UnoUrlResolver', local)
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    while True:
        try:
            ctx = resolver.resolve(f'uno:pipe,name={PIPE_NAME};urp;StarOffice.ComponentContext')
            return ctx.ServiceManager.createInstanceWithContext('com.sun.star.frame.Desktop', ctx)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def apply_landscape(doc):
    # Page styles in use get landscape orientation; width and height swap so the size stays A4/Letter.
    styles = doc.StyleFamilies.getByName('PageStyles')
    for name in styles.ElementNames:
        style = styles.getByName(name)
        if not style.isInUse() or style.IsLandscape:
            continue
        width, height = style.Width, style.Height
        style.IsLandscape = True
        style.Width, style.Height = max(width, height), min(width, height)


# PDF export filter data (LibreOffice's filter/source/pdf/pdfexport.cxx): `tagged` writes the
# structure tree; `pdf-ua-1` also asks the PDF/UA export, which adds the XMP identification and its
# own accessibility checks, and shows the document's title rather than the file name (ISO 14289-1,
# 7.1: DisplayDocTitle).
ACCESSIBILITY = {
    'none': (),
    'tagged': (('UseTaggedPDF', True), ('ExportBookmarks', True)),
    'pdf-ua-1': (('UseTaggedPDF', True), ('ExportBookmarks', True), ('PDFUACompliance', True),
                 ('DisplayPDFDocumentTitle', True)),
}


def export_args(kind, accessibility):
    args = [prop('FilterName', EXPORT_FILTER[kind])]
    settings = ACCESSIBILITY[accessibility]
    if settings:
        data = tuple(prop(name, value) for name, value in settings)
        args.append(prop('FilterData', uno.Any('[]com.sun.star.beans.PropertyValue', data)))
    return tuple(args)


def kind_of(doc):
    if doc.supportsService('com.sun.star.sheet.SpreadsheetDocument'):
        return 'sheet'
    if doc.supportsService('com.sun.star.presentation.PresentationDocument'):
        return 'slides'
    if doc.supportsService('com.sun.star.text.GenericTextDocument'):
        return 'text'
    return None


# An encrypted OOXML file is an OLE2 compound file holding an `EncryptedPackage` stream (MS-OFFCRYPTO
# 2.3.4); an encrypted OpenDocument lists `encryption-data` in its manifest (ODF 1.2 Part 3, 3.8).
ENCRYPTED_PACKAGE = 'EncryptedPackage'.encode('utf-16-le')
CFB_SIGNATURE = bytes.fromhex('d0cf11e0a1b11ae1')


def is_encrypted(path):
    with open(path, 'rb') as f:
        if os.fstat(f.fileno()).st_size == 0:
            return False
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            if data[:8] == CFB_SIGNATURE:
                return data.find(ENCRYPTED_PACKAGE) >= 0
    try:
        with zipfile.ZipFile(path) as z:
            return b'encryption-data' in z.read('META-INF/manifest.xml')
    except (zipfile.BadZipFile, KeyError):
        return False


def load(desktop, req, args):
    # LibreOffice refuses an encrypted document without its password, or with a wrong one, with an
    # IllegalArgumentException and asks no interaction handler (7.4, measured): the file says which.
    try:
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(req['input']), '_blank', 0, args)
        refused = None
    except IllegalArgumentException as err:
        doc, refused = None, err
    if doc is not None or not is_encrypted(req['input']):
        if refused is not None:
            raise refused
        return doc, None
    if req.get('password') is None:
        return None, {'ok': False, 'error': 'encrypted', 'detail': 'The document needs a password'}
    return None, {'ok': False, 'error': 'wrong_password', 'detail': 'The password does not open it'}


def convert(desktop, req):
    ext = os.path.splitext(req['input'])[1]
    args = [prop('Hidden', True), prop('ReadOnly', True), prop('MacroExecutionMode', NEVER_EXECUTE),
            prop('UpdateDocMode', NO_UPDATE)]
    if ext in IMPORT_FILTER:
        args += [prop('FilterName', IMPORT_FILTER[ext]), prop('FilterOptions', IMPORT_OPTIONS[ext])]
    if req.get('password') is not None:
        args.append(prop('Password', req['password']))
    doc, refusal = load(desktop, req, tuple(args))
    if refusal:
        return refusal
    if doc is None:
        return {'ok': False, 'error': 'unreadable', 'detail': 'LibreOffice could not open the document'}
    try:
        kind = kind_of(doc)
        if kind is None:
            return {'ok': False, 'error': 'unreadable', 'detail': 'Not a text, spreadsheet or presentation'}
        if req.get('landscape') and kind != 'slides':
            apply_landscape(doc)
        args = export_args(kind, req.get('accessibility', 'none'))
        uno.invoke(doc, 'storeToURL', (uno.systemPathToFileUrl(req['output']), args))
        return {'ok': True, 'kind': kind}
    finally:
        doc.close(True)


def serve(desktop):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(SOCKET_PATH)
    os.chmod(SOCKET_PATH, 0o600)
    server.listen(1)
    print('ready', flush=True)
    while True:
        conn, _ = server.accept()
        with conn, conn.makefile('rw', encoding='utf-8') as stream:
            line = stream.readline()
            if not line:
                continue
            try:
                reply = convert(desktop, json.loads(line))
            except Exception as err:  # a UNO exception names the failing document, not us
                reply = {'ok': False, 'error': 'failed', 'detail': type(err).__name__}
            stream.write(json.dumps(reply) + '\n')
            stream.flush()


office = start_office()
try:
    serve(connect())
finally:
    office.kill()
