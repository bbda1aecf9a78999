/*
 * The merged outline, written by the merge itself into the document it is about to write: the
 * inputs' outlines as it opened them, re-pointed at the merged pages. The same rules as the tool's
 * own writer for merges in separate runs (src/tools/merge/merge-outlines.ts, outline-update.ts):
 * at most MAX_OUTLINE_ITEMS items MAX_OUTLINE_DEPTH deep; a bookmark into a page not taken keeps only
 * its surviving children; a view is kept when it is a destination form (a view name, then numbers
 * or nulls), else /Fit; nothing else of the input (actions, styles, references) reaches the output.
 */
/* Only std::shared_ptr, never qpdf's deprecated PointerHolder (qpdf/PointerHolder.hh). */
#define POINTERHOLDER_TRANSITION 4
#include "merge.h"

#include <qpdf/QPDFOutlineDocumentHelper.hh>
#include <qpdf/QPDFPageDocumentHelper.hh>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace {

/* The bounds of src/tools/merge/merge-outlines.ts (MAX_OUTLINE_ITEMS, MAX_OUTLINE_DEPTH). */
const int MAX_OUTLINE_ITEMS = 20000;
const int MAX_OUTLINE_DEPTH = 64;
/* A destination is a page and at most five view values (§12.3.2.2, /FitR); more are not read. */
const int MAX_DEST_ITEMS = 6;
/* Far past any page coordinate (outline-update.ts, MAX_COORDINATE). */
const double MAX_COORDINATE = 1e9;

struct Node {
  std::string title;
  /* [page view…]; uninitialized when the bookmark points nowhere (it holds kept children). */
  QPDFObjectHandle dest;
  bool open = false;
  std::vector<Node> kids;
};

/* One input's remapping: its page objects to the merged pages, and the items left to keep. */
struct Remap {
  std::map<QPDFObjGen, QPDFObjectHandle> pageMap;
  int& budget;
};

/* The view of an explicit destination `[page view…]`: kept when it is a destination form, else /Fit. */
std::vector<QPDFObjectHandle> viewOf(QPDFObjectHandle dest) {
  static const std::set<std::string> names{"/XYZ", "/Fit", "/FitH", "/FitV", "/FitR", "/FitB", "/FitBH", "/FitBV"};
  std::vector<QPDFObjectHandle> fit{QPDFObjectHandle::newName("/Fit")};
  int n = std::min(dest.getArrayNItems(), MAX_DEST_ITEMS);
  if (n < 2) return fit;
  QPDFObjectHandle name = dest.getArrayItem(1);
  if (!name.isName() || names.count(name.getName()) == 0) return fit;
  std::vector<QPDFObjectHandle> view{QPDFObjectHandle::newName(name.getName())};
  for (int i = 2; i < n; i++) {
    QPDFObjectHandle item = dest.getArrayItem(i);
    if (item.isNull()) {
      view.push_back(QPDFObjectHandle::newNull());
    } else if (item.isInteger() && std::llabs(item.getIntValue()) < MAX_COORDINATE) {
      view.push_back(QPDFObjectHandle::newInteger(item.getIntValue()));
    } else if (item.isReal() && std::isfinite(item.getNumericValue()) &&
               std::fabs(item.getNumericValue()) < MAX_COORDINATE) {
      view.push_back(QPDFObjectHandle::newReal(item.getNumericValue(), 4));
    } else {
      return fit;
    }
  }
  return view;
}

std::vector<Node> remapAll(std::vector<QPDFOutlineObjectHelper> outlines, Remap& at, int depth);

/* The bookmark re-pointed at the merged page; false when nothing of it is kept. */
bool remap(QPDFOutlineObjectHelper& outline, Remap& at, int depth, Node& node) {
  if (depth > MAX_OUTLINE_DEPTH || at.budget-- <= 0) return false;
  std::vector<Node> kids = remapAll(outline.getKids(), at, depth + 1);
  // Named destinations and GoTo actions resolved by qpdf.
  QPDFObjectHandle dest = outline.getDest();
  if (dest.isDictionary()) dest = dest.getKey("/D");
  QPDFObjectHandle page;
  if (dest.isArray() && dest.getArrayNItems() > 0) {
    QPDFObjectHandle target = dest.getArrayItem(0);
    auto found = target.isIndirect() ? at.pageMap.find(target.getObjGen()) : at.pageMap.end();
    if (found != at.pageMap.end()) page = found->second;
  }
  if (!page.isInitialized() && kids.empty()) return false;
  node.title = outline.getTitle();
  node.open = outline.getCount() >= 0;
  node.kids = std::move(kids);
  if (page.isInitialized()) {
    std::vector<QPDFObjectHandle> items{page};
    for (auto& value : viewOf(dest)) items.push_back(value);
    node.dest = QPDFObjectHandle::newArray(items);
  }
  return true;
}

std::vector<Node> remapAll(std::vector<QPDFOutlineObjectHelper> outlines, Remap& at, int depth) {
  std::vector<Node> nodes;
  for (auto& outline : outlines) {
    if (at.budget <= 0) break;
    Node node;
    if (remap(outline, at, depth, node)) nodes.push_back(std::move(node));
  }
  return nodes;
}

/* Writes `list` under `parent` as indirect objects; returns how many items it shows open. */
int emit(QPDF& out, std::vector<Node> const& list, QPDFObjectHandle parent, QPDFObjectHandle& first,
         QPDFObjectHandle& last) {
  std::vector<QPDFObjectHandle> items;
  for (size_t i = 0; i < list.size(); i++) items.push_back(out.makeIndirectObject(QPDFObjectHandle::newDictionary()));
  int shown = 0;
  for (size_t i = 0; i < list.size(); i++) {
    Node const& node = list[i];
    QPDFObjectHandle item = items[i];
    QPDFObjectHandle kidsFirst, kidsLast;
    int kidsShown = emit(out, node.kids, item, kidsFirst, kidsLast);
    item.replaceKey("/Title", QPDFObjectHandle::newUnicodeString(node.title));
    item.replaceKey("/Parent", parent);
    if (node.dest.isInitialized()) item.replaceKey("/Dest", node.dest);
    if (i > 0) item.replaceKey("/Prev", items[i - 1]);
    if (i + 1 < list.size()) item.replaceKey("/Next", items[i + 1]);
    if (kidsLast.isInitialized()) {
      item.replaceKey("/First", kidsFirst);
      item.replaceKey("/Last", kidsLast);
      // Closed items count negatively what opening them would show (§12.3.3, Table 153).
      item.replaceKey("/Count", QPDFObjectHandle::newInteger(node.open ? kidsShown : -kidsShown));
    }
    shown += 1 + (node.open ? kidsShown : 0);
  }
  if (!items.empty()) {
    first = items.front();
    last = items.back();
  }
  return shown;
}

}  // namespace

void writeBookmarks(QPDF& out, std::vector<MergeInput>& inputs, Bookmarks mode) {
  if (mode == Bookmarks::none) return;
  std::vector<QPDFPageObjectHelper> merged = QPDFPageDocumentHelper(out).getAllPages();
  int budget = MAX_OUTLINE_ITEMS;
  std::vector<Node> top;
  size_t offset = 0;
  for (auto& input : inputs) {
    // Each page of the input to its first place in the merged document.
    Remap at{{}, budget};
    for (size_t k = 0; k < input.selected.size() && offset + k < merged.size(); k++) {
      QPDFObjGen page = input.pages.at(static_cast<size_t>(input.selected[k] - 1)).getObjectHandle().getObjGen();
      at.pageMap.emplace(page, merged[offset + k].getObjectHandle());
    }
    std::vector<Node> nodes =
        remapAll(QPDFOutlineDocumentHelper(*input.pdf).getTopLevelOutlines(), at, mode == Bookmarks::perFile ? 2 : 1);
    if (mode == Bookmarks::keep) {
      for (auto& node : nodes) top.push_back(std::move(node));
    } else if (offset < merged.size()) {
      Node file;
      file.title = input.title;
      file.dest = QPDFObjectHandle::newArray(
          std::vector<QPDFObjectHandle>{merged[offset].getObjectHandle(), QPDFObjectHandle::newName("/Fit")});
      file.kids = std::move(nodes);
      top.push_back(std::move(file));
    }
    offset += input.selected.size();
  }
  if (top.empty()) return;
  QPDFObjectHandle root = out.makeIndirectObject(QPDFObjectHandle::newDictionary());
  QPDFObjectHandle first, last;
  int shown = emit(out, top, root, first, last);
  root.replaceKey("/Type", QPDFObjectHandle::newName("/Outlines"));
  root.replaceKey("/First", first);
  root.replaceKey("/Last", last);
  root.replaceKey("/Count", QPDFObjectHandle::newInteger(shown));
  out.getRoot().replaceKey("/Outlines", root);
}
