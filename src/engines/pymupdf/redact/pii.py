# Personal data in a text, found by kind and checked the way each kind can be checked: e-mail
# addresses (form), phone numbers (phonenumbers, Google's libphonenumber: valid for their region),
# IBANs (python-stdnum: country format and ISO 7064 check digits), payment card numbers (issuer
# prefix, length, Luhn), IPv4 and IPv6 addresses (ipaddress) and national identifiers (python-stdnum,
# with their check digits where the scheme has one). One module for detect-pii and redact's
# `detect`: a Detector behaves like a compiled regular expression (finditer, search, sub), so the
# redaction path (terms.py) uses it wherever it uses a pattern. Nothing here prints a value.
import ipaddress
import re

import phonenumbers
from stdnum import iban, luhn
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fi import hetu
from stdnum.fr import nir
from stdnum.it import codicefiscale
from stdnum.nl import bsn
from stdnum.pl import pesel
from stdnum.se import personnummer
from stdnum.us import ssn

KINDS = ("email", "phone", "iban", "card", "ip", "national_id")

EMAIL = re.compile(
    r"(?<![\w.+%-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-])"
)
# An IBAN as printed: country, check digits, then the account in groups (spaces allowed); the run may
# take in a following word, so the longest prefix of whole groups that checks out is the match.
IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
# 13 to 19 digits, in groups split by one space or hyphen at most (not after a `+`: a phone number).
CARD = re.compile(r"(?<![\d.,+-])\d(?:[ -]?\d){12,18}(?![\d])")
CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|2))")
IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\.?\d)")
IPV6 = re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?"
                  r"(?![\w:])")

# National identifiers: (scheme, printed form, python-stdnum module). Schemes of nine or eleven bare
# digits (BSN, IdNr, PESEL) are checked by their check digit only, like any other number of that size.
NATIONAL_IDS = (
    ("us.ssn", r"\d{3}-\d{2}-\d{4}", ssn),
    ("de.idnr", r"\d{2} ?\d{3} ?\d{3} ?\d{3}", idnr),
    ("pl.pesel", r"\d{11}", pesel),
    ("fr.nir", r"[12] ?\d{2} ?\d{2} ?(?:\d{2}|2A|2B) ?\d{3} ?\d{3} ?\d{2}", nir),
    ("nl.bsn", r"\d{4}\.?\d{2}\.?\d{3}", bsn),
    ("es.dni", r"\d{8}-?[A-Z]", dni),
    ("es.nie", r"[XYZ]-?\d{7}-?[A-Z]", nie),
    ("it.codicefiscale", r"[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]", codicefiscale),
    ("se.personnummer", r"\d{6}[-+]\d{4}", personnummer),
    ("fi.hetu", r"\d{6}[-+A]\d{3}[0-9A-Y]", hetu),
)
NATIONAL_ID_PATTERNS = [
    (scheme, re.compile(rf"(?<![\w.-]){form}(?![\w-]|\.\d)"), module) for scheme, form, module in NATIONAL_IDS
]
NATIONAL_ID_SCHEMES = [scheme for scheme, _, _ in NATIONAL_IDS]


class Found:
    """One match, shaped like re.Match where the redaction path uses it (start, end, group)."""

    def __init__(self, start, end, kind, value, scheme=None):
        self._start, self._end, self.kind, self.value, self.scheme = start, end, kind, value, scheme

    def start(self):
        return self._start

    def end(self):
        return self._end

    def group(self, _=0):
        return self.value


def longest_prefix(text, start, end, check):
    """The longest run of whole space- or hyphen-separated groups from `start` that `check` accepts,
    as (start, end), or None: a match that swallowed a following word or number gives it back."""
    cuts = [m.start() for m in re.finditer(r"[ -]", text[start:end])] + [end - start]
    for cut in sorted(set(cuts), reverse=True):
        if check(text[start:start + cut]):
            return start, start + cut
    return None


def card_groups(value):
    """Written unbroken, or grouped as cards print: fours (the last group shorter up to 19 digits),
    or 4-6-5 and 4-6-4 (American Express, Diners Club)."""
    groups = [len(g) for g in re.split(r"[ -]", value)]
    if len(groups) == 1:
        return True
    return groups in ([4, 6, 5], [4, 6, 4]) or (all(n == 4 for n in groups[:-1]) and 1 <= groups[-1] <= 4)


def valid_card(value):
    digits = re.sub(r"[ -]", "", value)
    separators = set(re.findall(r"[ -]", value))
    return (13 <= len(digits) <= 19 and len(separators) <= 1 and card_groups(value)
            and CARD_PREFIX.match(digits) is not None and luhn.is_valid(digits))


def valid_ip(value):
    """An address ipaddress accepts; an IPv6 one with two groups at least or `::` first (not `e::`)."""
    if ":" in value and len(re.findall(r"[0-9A-Fa-f]+", value)) < (1 if value.startswith("::") else 2):
        return False
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


class Detector:
    def __init__(self, kinds, region="US"):
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown kinds: {sorted(unknown)}")
        self.kinds = [k for k in KINDS if k in kinds]
        self.region = (region or "ZZ").upper()

    def candidates(self, text):
        """Every checked match of every kind but phone numbers, in the order kinds take precedence on
        overlap. A line end counts as a space (same length, so the offsets hold): a value may wrap."""
        text = text.replace("\n", " ")
        if "email" in self.kinds:
            for m in EMAIL.finditer(text):
                yield Found(m.start(), m.end(), "email", m.group())
        if "iban" in self.kinds:
            for m in IBAN.finditer(text):
                span = longest_prefix(text, m.start(), m.end(), iban.is_valid)
                if span:
                    yield Found(*span, "iban", text[span[0]:span[1]])
        if "card" in self.kinds:
            for m in CARD.finditer(text):
                span = longest_prefix(text, m.start(), m.end(), valid_card)
                if span:
                    yield Found(*span, "card", text[span[0]:span[1]])
        if "national_id" in self.kinds:
            for scheme, pattern, module in NATIONAL_ID_PATTERNS:
                for m in pattern.finditer(text):
                    if module.is_valid(m.group()):
                        yield Found(m.start(), m.end(), "national_id", m.group(), scheme)
        if "ip" in self.kinds:
            for pattern in (IPV4, IPV6):
                for m in pattern.finditer(text):
                    if valid_ip(m.group()):
                        yield Found(m.start(), m.end(), "ip", m.group())

    def phones(self, text):
        matcher = phonenumbers.PhoneNumberMatcher(text, self.region, leniency=phonenumbers.Leniency.VALID)
        for m in matcher:
            if self.plausible_phone(m.raw_string):
                yield Found(m.start, m.end, "phone", m.raw_string)

    def plausible_phone(self, raw):
        """A number written with its country code or an area code in brackets is taken as valid; one
        written without must also be grouped the way its region writes numbers (libphonenumber's
        STRICT_GROUPING), or an invoice number like 2023-000123 would be a US phone number."""
        if raw.startswith(("+", "(")):
            return True
        leniency = phonenumbers.Leniency.STRICT_GROUPING
        strict = phonenumbers.PhoneNumberMatcher(raw, self.region, leniency=leniency)
        return any(m.raw_string == raw for m in strict)

    def finditer(self, text):
        """The matches in `text`, by kind; a span taken by an earlier kind is not taken again. Phone
        numbers come last, read with the spans taken blanked out: libphonenumber finds no number
        followed by more digits (`+44 20 7946 0958 192.168.10.42`)."""
        taken = []
        for found in self.candidates(text):
            if not any(found.start() < end and start < found.end() for start, end in taken):
                taken.append((found.start(), found.end()))
                yield found
        if "phone" in self.kinds:
            blanked = list(text.replace("\n", " "))
            for start, end in taken:
                blanked[start:end] = " " * (end - start)
            for found in self.phones("".join(blanked)):
                if not any(found.start() < end and start < found.end() for start, end in taken):
                    yield found

    def found(self, text):
        return sorted(self.finditer(text), key=lambda f: f.start())

    def search(self, text):
        return next(iter(self.finditer(text)), None)

    def sub(self, replacement, text):
        """`text` without its matches; again while removing one joins its neighbours into another."""
        for _ in range(5):
            matches = self.found(text)
            if not matches:
                break
            for m in reversed(matches):
                text = text[:m.start()] + replacement + text[m.end():]
        return text


def mask(kind, value):
    """A form of `value` that says what it was without giving it away: `j***@example.com`, a card's
    and an IBAN's last four, a phone number's last two; every other letter and digit a `*`."""
    if kind == "email":
        local, _, domain = value.partition("@")
        return f"{local[:1]}***@{domain}"
    keep_start, keep_end = {"iban": (2, 4), "card": (0, 4), "phone": (0, 2), "ip": (0, 0)}.get(kind, (0, 2))
    chars = list(value)
    alnum = [i for i, c in enumerate(chars) if c.isalnum()]
    shown = set(alnum[:keep_start]) | set(alnum[len(alnum) - keep_end:] if keep_end else [])
    hidden = set(alnum) - shown
    return "".join("*" if i in hidden else c for i, c in enumerate(chars))
