/*
 * quire-qpdf-merge, run by the forkserver's child when argv[0] names it (run.c): a merge in one
 * process that opens each input once. It does what `qpdf --empty --remove-unreferenced-resources=no
 * --pages f1 r1 f2 r2 … -- out` does (QPDFJob::handlePageSpecs in qpdf 11.3: pages copied in order,
 * a page taken twice copied shallowly, page labels and form fields carried over, the highest input
 * version kept) and, from the same opened files, writes the bookmarks into the document before it
 * is written (merge-bookmarks.cc), so nothing reads the output again.
 *
 *   quire-qpdf-merge [--progress] [--bookmarks keep|per_file] OUTPUT INPUT RANGE TITLE [INPUT RANGE TITLE …]
 *
 * RANGE is a qpdf page range, empty for every page; TITLE the input's bookmark with per_file (its
 * name without extension), else empty. Stdout: {"files":[{"pages":N}, …]}, each input's page count.
 * Exit status as qpdf's: 0, 2 on an error (its message on stderr), 3 when it warned.
 */
/* Only std::shared_ptr, never qpdf's deprecated PointerHolder (qpdf/PointerHolder.hh). */
#define POINTERHOLDER_TRANSITION 4
#include "merge.h"

#include <qpdf/Buffer.hh>
#include <qpdf/JSON.hh>
#include <qpdf/QPDF.hh>
#include <qpdf/QPDFAcroFormDocumentHelper.hh>
#include <qpdf/QPDFLogger.hh>
#include <qpdf/QPDFPageDocumentHelper.hh>
#include <qpdf/QPDFPageLabelDocumentHelper.hh>
#include <qpdf/QPDFWriter.hh>
#include <qpdf/QUtil.hh>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

/*
 * Inputs are read whole, in one read, and parsed from memory while their sizes add up to at most
 * this: qpdf's file reader seeks and reads in small steps (about 550 calls for two 50 KB files), each
 * a system call. The rest are parsed from their files, so memory stays bounded whatever the inputs.
 */
static const off_t READ_WHOLE_BYTES = 16 * 1024 * 1024;

namespace {

/*
 * `qpdf --progress`'s line, which src/engines/qpdf/progress.ts parses: at most one per
 * PROGRESS_EVERY, and the last. The service reads the latest when it asks; qpdf's own once per
 * percent were about 40 lines (7.7 KB) for a merge of two small files.
 */
class Progress : public QPDFWriter::ProgressReporter {
 public:
  explicit Progress(std::string output) : output(std::move(output)) {}
  void reportProgress(int percent) override {
    auto now = std::chrono::steady_clock::now();
    if (percent < 100 && now - last < PROGRESS_EVERY) return;
    last = now;
    *QPDFLogger::defaultLogger()->getInfo() << "qpdf: " << output << ": write progress: " << percent << "%\n";
  }

 private:
  static constexpr std::chrono::milliseconds PROGRESS_EVERY{50};
  std::string output;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

/*
 * Opens `path` into `input.pdf`: from memory when it fits in what is left of READ_WHOLE_BYTES (`left`,
 * reduced by its size), else from the file. Either way the path is the name qpdf's messages give.
 */
void open(MergeInput& input, char const* path, off_t& left) {
  input.pdf = QPDF::create();
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  struct stat info;
  if (fd >= 0 && fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size <= left) {
    auto bytes = std::make_shared<std::vector<char>>(static_cast<size_t>(info.st_size));
    size_t got = 0;
    while (got < bytes->size()) {
      ssize_t n = ::read(fd, bytes->data() + got, bytes->size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    ::close(fd);
    if (got == bytes->size()) {
      left -= info.st_size;
      input.bytes = bytes;
      input.pdf->processMemoryFile(path, bytes->data(), bytes->size());
      return;
    }
  } else if (fd >= 0) {
    ::close(fd);
  }
  input.pdf->processFile(path);
}

/* `buffer` as the file `path`, created or truncated, in as few writes as the kernel takes. */
void writeWhole(char const* path, Buffer& buffer) {
  int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error(std::string(path) + ": " + std::strerror(errno));
  unsigned char const* at = buffer.getBuffer();
  size_t left = buffer.getSize();
  while (left > 0) {
    ssize_t n = ::write(fd, at, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      throw std::runtime_error(std::string(path) + ": " + std::strerror(error));
    }
    at += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0) throw std::runtime_error(std::string(path) + ": " + std::strerror(errno));
}

/* Pages of every input copied into `out` in order, as QPDFJob::handlePageSpecs copies them. */
bool copyPages(QPDF& out, std::vector<MergeInput>& inputs) {
  QPDFPageDocumentHelper dh(out);
  QPDFAcroFormDocumentHelper outForm(out);
  std::set<QPDFObjGen> referencedFields;
  std::vector<QPDFObjectHandle> labels;
  bool anyLabels = false;
  bool warnings = false;
  int outPage = 0;
  for (auto& input : inputs) {
    QPDFPageLabelDocumentHelper pldh(*input.pdf);
    QPDFAcroFormDocumentHelper form(*input.pdf);
    anyLabels = anyLabels || pldh.hasPageLabels();
    std::set<QPDFObjGen> copied;
    for (int number : input.selected) {
      int index = number - 1;
      pldh.getLabelsForPageRange(index, index, outPage++, labels);
      QPDFPageObjectHelper page = input.pages.at(static_cast<size_t>(index));
      if (!copied.insert(page.getObjectHandle().getObjGen()).second) page = page.shallowCopyPage();
      dh.addPage(page, false);
      if (!form.hasAcroForm()) continue;
      try {
        QPDFObjectHandle added = out.copyForeignObject(page.getObjectHandle());
        outForm.fixCopiedAnnotations(added, page.getObjectHandle(), form, &referencedFields);
      } catch (std::exception& e) {
        out.warn(qpdf_e_damaged_pdf, "", 0, std::string("Exception caught while fixing copied annotations: ") + e.what());
      }
    }
    warnings = warnings || input.pdf->anyWarnings();
  }
  if (anyLabels) {
    QPDFObjectHandle pageLabels = QPDFObjectHandle::newDictionary();
    pageLabels.replaceKey("/Nums", QPDFObjectHandle::newArray(labels));
    out.getRoot().replaceKey("/PageLabels", pageLabels);
  }
  if (outForm.hasAcroForm()) {
    QPDFObjectHandle acroForm = out.getRoot().getKey("/AcroForm");
    QPDFObjectHandle fields = acroForm.getKey("/Fields");
    if (fields.isArray()) {
      QPDFObjectHandle kept = QPDFObjectHandle::newArray();
      if (fields.isIndirect()) kept = out.makeIndirectObject(kept);
      for (auto const& field : fields.aitems()) {
        if (referencedFields.count(field.getObjGen())) kept.appendItem(field);
      }
      if (kept.getArrayNItems() > 0) {
        acroForm.replaceKey("/Fields", kept);
      } else {
        out.getRoot().removeKey("/AcroForm");
      }
    }
  }
  return warnings;
}

int merge(int argc, char** argv) {
  bool progress = false;
  Bookmarks bookmarks = Bookmarks::none;
  int at = 1;
  for (; at < argc && std::strncmp(argv[at], "--", 2) == 0; at++) {
    if (std::strcmp(argv[at], "--progress") == 0) {
      progress = true;
    } else if (std::strcmp(argv[at], "--bookmarks") == 0 && at + 1 < argc) {
      std::string mode = argv[++at];
      if (mode == "keep") {
        bookmarks = Bookmarks::keep;
      } else if (mode == "per_file") {
        bookmarks = Bookmarks::perFile;
      } else {
        throw std::runtime_error("unknown bookmarks " + mode);
      }
    } else {
      throw std::runtime_error(std::string("unknown option ") + argv[at]);
    }
  }
  if (argc - at < 4 || (argc - at - 1) % 3 != 0) throw std::runtime_error("usage: OUTPUT INPUT RANGE TITLE …");
  char const* output = argv[at++];
  std::vector<MergeInput> inputs;
  PDFVersion version;
  off_t left = READ_WHOLE_BYTES;
  for (; at < argc; at += 3) {
    MergeInput input;
    open(input, argv[at], left);
    version.updateIfGreater(input.pdf->getVersionAsPDFVersion());
    input.pages = QPDFPageDocumentHelper(*input.pdf).getAllPages();
    int count = static_cast<int>(input.pages.size());
    if (*argv[at + 1] == '\0') {
      for (int i = 1; i <= count; i++) input.selected.push_back(i);
    } else {
      input.selected = QUtil::parse_numrange(argv[at + 1], count);
    }
    input.title = argv[at + 2];
    inputs.push_back(std::move(input));
  }

  auto out = QPDF::create();
  out->emptyPDF();
  bool warnings = copyPages(*out, inputs);
  writeBookmarks(*out, inputs, bookmarks);
  /*
   * Inputs all read whole: the output, about their size (at most READ_WHOLE_BYTES), is written to
   * memory and then to the file at once. qpdf's file writer flushes at the end of every stream (a
   * small merge: about 30 writes).
   */
  bool small = std::all_of(inputs.begin(), inputs.end(), [](MergeInput const& input) { return input.bytes; });
  QPDFWriter writer(*out);
  if (small) {
    writer.setOutputMemory();
  } else {
    writer.setOutputFilename(output);
  }
  writer.setMinimumPDFVersion(version);
  if (progress) writer.registerProgressReporter(std::make_shared<Progress>(output));
  writer.write();
  if (small) writeWhole(output, *writer.getBufferSharedPointer());
  warnings = warnings || out->anyWarnings();

  JSON files = JSON::makeArray();
  for (auto& input : inputs) {
    JSON file = JSON::makeDictionary();
    file.addDictionaryMember("pages", JSON::makeInt(static_cast<long long>(input.pages.size())));
    files.addArrayElement(file);
  }
  JSON result = JSON::makeDictionary();
  result.addDictionaryMember("files", files);
  *QPDFLogger::defaultLogger()->getInfo() << result.unparse() << "\n";
  return warnings ? 3 : 0;
}

}  // namespace

extern "C" int quire_merge(int argc, char** argv) {
  try {
    return merge(argc, argv);
  } catch (std::exception& e) {
    *QPDFLogger::defaultLogger()->getError() << "qpdf: " << e.what() << "\n";
    return 2;
  }
}
