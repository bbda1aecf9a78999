# Page matching: which page of the new file is which page of the old one. Pages equal in words (or,
# without text, in thumbnail) are aligned in order by difflib's SequenceMatcher; the pages left over
# are paired by equal signature anywhere, then by similarity (at least MATCH_MIN) among the pages
# within WINDOW places of each other; the longest run of pairs in the same order in both files
# (a longest increasing subsequence) stays in place and every other pair is a moved page. Between
# two pages that stay in place (or the start and end), as many old pages left over as new ones are
# paired in order, however different: a one-page letter edited throughout is still that page
# changed. Pages left unpaired were removed (old) or added (new).
from bisect import bisect_left
from difflib import SequenceMatcher

MATCH_MIN = 0.5
WINDOW = 50


def _in_order(pairs):
    """Indices of a longest run of `pairs` (sorted by old page) whose new pages also increase."""
    tails, tail_at, before = [], [], [None] * len(pairs)
    for k, (_, new) in enumerate(pairs):
        i = bisect_left(tails, new)
        before[k] = tail_at[i - 1] if i else None
        if i == len(tails):
            tails.append(new)
            tail_at.append(k)
        else:
            tails[i] = new
            tail_at[i] = k
    keep, k = set(), tail_at[-1] if tail_at else None
    while k is not None:
        keep.add(k)
        k = before[k]
    return keep


def _by_signature(old_left, new_left, old_sigs, new_sigs, pairs):
    waiting = {}
    for j in new_left:
        waiting.setdefault(new_sigs[j].digest, []).append(j)
    for i in list(old_left):
        same = waiting.get(old_sigs[i].digest)
        if same:
            j = same.pop(0)
            pairs[i] = (j, 1.0)
            old_left.remove(i)
            new_left.remove(j)


def _by_similarity(old_left, new_left, old_sigs, new_sigs, pairs):
    olds, news = sorted(old_left), sorted(new_left)
    candidates = []
    for a, i in enumerate(olds):
        centre = round(a * len(news) / max(1, len(olds)))
        for j in news[max(0, centre - WINDOW): centre + WINDOW + 1]:
            score = old_sigs[i].similarity(new_sigs[j])
            if score >= MATCH_MIN:
                candidates.append((-score, i, j))
    candidates.sort()
    for negative, i, j in candidates:
        if i in old_left and j in new_left:
            pairs[i] = (j, -negative)
            old_left.remove(i)
            new_left.remove(j)


def match_pages(old_sigs, new_sigs):
    """{old index: (new index, similarity)} over the selected pages, and which pairs moved."""
    matcher = SequenceMatcher(None, [s.digest for s in old_sigs], [s.digest for s in new_sigs],
                              autojunk=False)
    pairs = {}
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            pairs[block.a + k] = (block.b + k, 1.0)
    old_left = set(range(len(old_sigs))) - set(pairs)
    new_left = set(range(len(new_sigs))) - {j for j, _ in pairs.values()}
    _by_signature(old_left, new_left, old_sigs, new_sigs, pairs)
    _by_similarity(old_left, new_left, old_sigs, new_sigs, pairs)
    _in_gaps(old_left, new_left, old_sigs, new_sigs, pairs)
    ordered = sorted((i, j) for i, (j, _) in pairs.items())
    keep = _in_order(ordered)
    moved = {ordered[k][0] for k in range(len(ordered)) if k not in keep}
    return pairs, moved, sorted(old_left), sorted(new_left)


def _in_gaps(old_left, new_left, old_sigs, new_sigs, pairs):
    ordered = sorted((i, j) for i, (j, _) in pairs.items())
    anchors = [(-1, -1)] + [ordered[k] for k in sorted(_in_order(ordered))]
    anchors.append((len(old_sigs), len(new_sigs)))
    for (a_old, a_new), (b_old, b_new) in zip(anchors, anchors[1:], strict=False):
        olds = sorted(i for i in old_left if a_old < i < b_old)
        news = sorted(j for j in new_left if a_new < j < b_new)
        if not olds or len(olds) != len(news):
            continue
        for i, j in zip(olds, news, strict=True):
            pairs[i] = (j, old_sigs[i].similarity(new_sigs[j]))
            old_left.remove(i)
            new_left.remove(j)
