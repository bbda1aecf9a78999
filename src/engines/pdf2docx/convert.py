# Conversion driver for the pdf2docx engine, run inside the document sandbox: converts the PDF in
# argv[1] to the .docx in argv[2] (both in the exchange folder, the only place it can write).
import sys

from pdf2docx import Converter

EXIT_UNREADABLE = 3


def main():
    try:
        converter = Converter(sys.argv[1])
    except Exception:
        sys.stderr.write("cannot open the PDF\n")
        sys.exit(EXIT_UNREADABLE)
    try:
        # One process: pdf2docx's multiprocessing mode forks workers the memory cap counts once each.
        converter.convert(sys.argv[2], multi_processing=False)
    finally:
        converter.close()


if __name__ == "__main__":
    main()
