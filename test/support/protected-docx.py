# Saves a DOCX with a password through LibreOffice's UNO API (as Word's "Encrypt with password":
# an OLE2 file holding the encrypted package), for the office-to-pdf password tests.
# argv: <input.docx> <output.docx> <profile-dir>; the password is the first line of stdin.
import os
import subprocess
import sys
import time

import uno
from com.sun.star.beans import NamedValue, PropertyValue

SOURCE, TARGET, PROFILE = sys.argv[1:4]
PASSWORD = sys.stdin.readline().rstrip('\n')
PIPE = 'quire-test-docx-' + str(os.getpid())


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def named(name, value):
    n = NamedValue()
    n.Name, n.Value = name, value
    return n


def save_protected(pipe):
    office = subprocess.Popen([
        'soffice', '--headless', '--invisible', '--norestore', '--nolockcheck', '--nodefault',
        f'-env:UserInstallation={uno.systemPathToFileUrl(PROFILE)}', f'--accept=pipe,name={pipe};urp;',
    ], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext('com.sun.star.bridge.UnoUrlResolver', local)
        deadline = time.monotonic() + 120
        while True:
            try:
                ctx = resolver.resolve(f'uno:pipe,name={pipe};urp;StarOffice.ComponentContext')
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        desktop = ctx.ServiceManager.createInstanceWithContext('com.sun.star.frame.Desktop', ctx)
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(os.path.abspath(SOURCE)), '_blank', 0,
                                           (prop('Hidden', True),))
        # What LibreOffice's own save dialog hands the OOXML filter (sfx2 filedlghelper: OOXPassword
        # and the "Standard" crypto type); a plain Password property is ignored by this filter.
        data = uno.Any('[]com.sun.star.beans.NamedValue',
                       (named('OOXPassword', PASSWORD), named('CryptoType', 'Standard')))
        args = (prop('FilterName', 'MS Word 2007 XML'), prop('EncryptionData', data))
        uno.invoke(doc, 'storeToURL', (uno.systemPathToFileUrl(os.path.abspath(TARGET)), args))
        doc.close(True)
    finally:
        office.kill()
        office.wait()


# A fresh profile's first start may restart soffice under the bridge (the connection is then
# disposed): a second start finds the profile made.
for attempt in range(3):
    try:
        save_protected(f'{PIPE}-{attempt}')
        break
    except Exception as err:
        print(f'attempt {attempt + 1}: {type(err).__name__}: {err}', file=sys.stderr)
        if attempt == 2:
            raise
