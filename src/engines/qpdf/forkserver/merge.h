/*
 * What the one-run merge's two parts share (C++ only): an opened input, and the bookmarks written
 * into the merged document (merge-bookmarks.cc) before merge.cc writes it.
 */
#ifndef QUIRE_MERGE_H
#define QUIRE_MERGE_H
#include <qpdf/QPDF.hh>
#include <qpdf/QPDFPageObjectHelper.hh>

#include <memory>
#include <string>
#include <vector>

struct MergeInput {
  /* The file's bytes when read whole; qpdf parses from them while `pdf` lives. */
  std::shared_ptr<std::vector<char>> bytes;
  std::shared_ptr<QPDF> pdf;
  std::vector<QPDFPageObjectHelper> pages;
  /* Page numbers (from 1) taken, in order. */
  std::vector<int> selected;
  /* The file's bookmark with `per_file`: its name without extension. */
  std::string title;
};

enum class Bookmarks { none, keep, perFile };

/*
 * Writes the merged document's outline into `out`, whose pages are the inputs' selected pages in
 * order: each input's own bookmarks re-pointed at the merged pages (`keep`), under one bookmark per
 * input (`perFile`). The rules of src/tools/merge/merge-outlines.ts and outline-update.ts.
 */
void writeBookmarks(QPDF& out, std::vector<MergeInput>& inputs, Bookmarks mode);

#endif
