/* The compiled kernel of the NMBR 9 engine: move generation and the policy's valuation.
 *
 * It does what games/nmbr9/board.py (Board._add, Board._generate) and games/nmbr9/policy.py
 * (_score, choose, _best_next) do in pure Python, which stays the reference: the same
 * placements in the same order, the same values computed with the same floating-point
 * operations in the same order (the module is built with -ffp-contract=off), so a bot makes
 * the same choices with and without it. games/nmbr9/kernel.py loads it; tests/nmbr9 compares
 * the two on every perft position and on whole games.
 *
 * A display is rebuilt here from Board._tiles and Board._shapes on every call: per level,
 * three bitboards over the 121 x 121 window with one 128-bit row per board row (the squares
 * whose top piece lies on the level, the covered squares, the free squares next to a piece
 * on the level), and the index of the top piece of every square. Square (x, y) is bit
 * x + COL0 of row y + ROW0. Only the plain rules and the relaxations "one" and "loose" are
 * handled; "bridge" stays in Python.
 *
 * Every function returns None where it cannot answer (too many levels or tiles, no legal
 * placement, the kernel busy); the caller then runs the pure-Python code.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef unsigned __int128 row_t;

#define MAXSHAPES 32
#define MAXCELLS 16
#define NROWS 136 /* rows y = -68 .. 67: the window plus room for reads around it */
#define ROW0 68
#define COL0 64
#define WINDOW 60
#define MAXL 16 /* levels handled */
#define MAXT 250 /* tiles handled */
#define MAXAREA 64

typedef struct {
    int ncells, width, height;
    int cx[MAXCELLS], cy[MAXCELLS];
    unsigned rowbits[4];
} Orient;

static Orient orients[MAXSHAPES][4];
static int rotations_of[MAXSHAPES];
static int values[MAXSHAPES];
static int nshapes = 0;

typedef struct {
    row_t top[NROWS], occ[NROWS], nb[NROWS];
} Level;

typedef struct {
    int nlevels, ntiles, bridged, score, rmin, rmax;
    uint8_t topidx[NROWS][128]; /* index + 1 of the top piece of each square, 0 for none */
    /* levels 0 .. nlevels - 1 in use; level nlevels is kept empty */
    Level lv[MAXL + 1];
} Board;

typedef struct {
    int16_t x, y;
    uint8_t rot, level;
} Cand;

typedef struct {
    Cand *c;
    double *v;
    Py_ssize_t n, cap;
} Cands;

typedef struct {
    double points, contact, exposed, holes, thick, fit, waste, climb;
    double area[MAXAREA];
    int narea;
} Weights;

/* Scratch space, reused between calls (the GIL is held throughout a call). */
static Board *scratch[2];
static Cands lists[2];
static int busy = 0;

/* The valuation's helpers are inlined into score_all and best_next, which are compiled twice
 * on x86: as is, and for processors with the POPCNT instruction (chosen at import), since
 * counting bits is most of the work and the baseline x86-64 target has no such instruction. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define POPCNT_CLONES 1
#endif
#define HOT static inline __attribute__((always_inline))

HOT int popcount(row_t v)
{
    return __builtin_popcountll((uint64_t)v) + __builtin_popcountll((uint64_t)(v >> 64));
}

static inline int lowest(row_t v)
{
    uint64_t low = (uint64_t)v;
    return low ? __builtin_ctzll(low) : 64 + __builtin_ctzll((uint64_t)(v >> 64));
}

static int push(Cands *list, int x, int y, int rot, int level)
{
    if (list->n == list->cap) {
        Py_ssize_t cap = list->cap ? 2 * list->cap : 1024;
        Cand *c = PyMem_Realloc(list->c, cap * sizeof(Cand));
        if (c == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        list->c = c;
        double *v = PyMem_Realloc(list->v, cap * sizeof(double));
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        list->v = v;
        list->cap = cap;
    }
    Cand *c = &list->c[list->n++];
    c->x = (int16_t)x;
    c->y = (int16_t)y;
    c->rot = (uint8_t)rot;
    c->level = (uint8_t)level;
    return 0;
}

/* ------------------------------------------------------------------ the display */

static void board_clear(Board *b)
{
    memset(b, 0, offsetof(Board, lv) + sizeof(Level));
    b->rmin = NROWS;
    b->rmax = -1;
}

static void board_copy(Board *dst, const Board *src)
{
    memcpy(dst, src, offsetof(Board, lv) + (size_t)(src->nlevels + 1) * sizeof(Level));
}

/* Board._add: 0, or 1 when the display is beyond what the kernel handles. */
static int board_add(Board *b, int sid, int rot, int x, int y, int level)
{
    if (level < 0 || level > b->nlevels || level >= MAXL || b->ntiles >= MAXT)
        return 1;
    if (x < -WINDOW || y < -WINDOW || x > WINDOW || y > WINDOW)
        return 1;
    const Orient *o = &orients[sid][rot];
    int r = y + ROW0, c = x + COL0, h = o->height;
    int index = b->ntiles++;
    for (int k = 0; k < o->ncells; k++)
        b->topidx[r + o->cy[k]][c + o->cx[k]] = (uint8_t)(index + 1);
    if (level == b->nlevels) {
        b->nlevels++;
        memset(&b->lv[b->nlevels], 0, sizeof(Level));
    }
    row_t m[6] = {0};
    for (int k = 0; k < h; k++)
        m[k + 1] = (row_t)o->rowbits[k] << c;
    if (level) {
        Level *below = &b->lv[level - 1];
        int gap = 0;
        for (int k = 0; k < h; k++) {
            below->top[r + k] &= ~m[k + 1];
            if (m[k + 1] & ~below->occ[r + k])
                gap = 1;
        }
        if (gap) {
            b->bridged = 1;
            for (int lower = 0; lower < level - 1; lower++)
                for (int k = 0; k < h; k++)
                    b->lv[lower].top[r + k] &= ~m[k + 1];
        }
    }
    Level *here = &b->lv[level];
    for (int k = 0; k < h; k++) {
        here->top[r + k] |= m[k + 1];
        here->occ[r + k] |= m[k + 1];
    }
    for (int k = 0; k < h + 2; k++) {
        /* row r - 1 + k: m[k] is the mask row at r - 1 + k */
        row_t grown = m[k] << 1 | m[k] >> 1;
        if (k > 0)
            grown |= m[k - 1];
        if (k + 1 < 6)
            grown |= m[k + 1];
        int rr = r - 1 + k;
        here->nb[rr] = (here->nb[rr] | grown) & ~here->occ[rr];
    }
    b->score += values[sid] * level;
    if (r < b->rmin)
        b->rmin = r;
    if (r + h - 1 > b->rmax)
        b->rmax = r + h - 1;
    return 0;
}

static PyObject *str_x, *str_y, *str_rotation;

static int get_int(PyObject *obj, PyObject *name, int *out)
{
    PyObject *value = PyObject_GetAttr(obj, name);
    if (value == NULL)
        return -1;
    long v = PyLong_AsLong(value);
    Py_DECREF(value);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < -1000 || v > 1000) {
        PyErr_SetString(PyExc_ValueError, "coordinate out of range");
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The display of Board._tiles / Board._shapes: 0, 1 when unsupported, -1 on an error. */
static int board_build(Board *b, PyObject *tiles, PyObject *shapes)
{
    board_clear(b);
    PyObject *ts = PySequence_Fast(tiles, "tiles must be a sequence");
    if (ts == NULL)
        return -1;
    PyObject *ss = PySequence_Fast(shapes, "shapes must be a sequence");
    if (ss == NULL) {
        Py_DECREF(ts);
        return -1;
    }
    int result = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(ts);
    if (n != PySequence_Fast_GET_SIZE(ss)) {
        PyErr_SetString(PyExc_ValueError, "tiles and shapes differ in length");
        result = -1;
        goto done;
    }
    if (n > MAXT) {
        result = 1;
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *tile = PySequence_Fast_GET_ITEM(ts, i);
        if (!PyTuple_Check(tile) || PyTuple_GET_SIZE(tile) != 2) {
            PyErr_SetString(PyExc_TypeError, "a tile is a (placement, level) pair");
            result = -1;
            goto done;
        }
        PyObject *placement = PyTuple_GET_ITEM(tile, 0);
        long level = PyLong_AsLong(PyTuple_GET_ITEM(tile, 1));
        long sid = PyLong_AsLong(PySequence_Fast_GET_ITEM(ss, i));
        int x, y, rot;
        if ((level == -1 || sid == -1) && PyErr_Occurred()) {
            result = -1;
            goto done;
        }
        if (get_int(placement, str_x, &x) || get_int(placement, str_y, &y) ||
            get_int(placement, str_rotation, &rot)) {
            result = -1;
            goto done;
        }
        if (sid < 0 || sid >= nshapes || rot < 0 || rot > 3) {
            PyErr_SetString(PyExc_ValueError, "bad shape or rotation");
            result = -1;
            goto done;
        }
        if (board_add(b, (int)sid, rot, x, y, (int)level)) {
            result = 1;
            goto done;
        }
    }
done:
    Py_DECREF(ts);
    Py_DECREF(ss);
    return result;
}

/* ------------------------------------------------------------------ move generation */

/* Board._generate for the plain rules, "one" and "loose": the legal placements of shape
 * ``sid`` ordered by level, rotation, y and x, and where each level starts in ``starts``
 * (highest level + 2 entries). Returns the number of entries of ``starts`` or -1. */
static int generate(const Board *b, int sid, int max_level, int one, int loose, Cands *out,
                    Py_ssize_t *starts)
{
    int nrot = rotations_of[sid];
    int ns = 0;
    out->n = 0;
    starts[ns++] = 0;
    if (b->ntiles == 0) {
        for (int rot = 0; rot < nrot; rot++)
            if (push(out, 0, 0, rot, 0))
                return -1;
        starts[ns++] = out->n;
        return ns;
    }
    int lo = b->rmin - 4, hi = b->rmax + 1;
    row_t taken[NROWS];
    const Level *ground = &b->lv[0];
    for (int r = lo; r <= hi + 3; r++) {
        row_t t = ground->occ[r];
        if (b->bridged)
            for (int level = 1; level < b->nlevels; level++)
                t |= b->lv[level].occ[r];
        taken[r] = t;
    }
    for (int rot = 0; rot < nrot; rot++) {
        const Orient *o = &orients[sid][rot];
        for (int r = lo; r <= hi; r++) {
            row_t touching = 0, blocked = 0;
            for (int k = 0; k < o->ncells; k++) {
                touching |= ground->nb[r + o->cy[k]] >> o->cx[k];
                blocked |= taken[r + o->cy[k]] >> o->cx[k];
            }
            row_t anchors = touching & ~blocked;
            int y = r - ROW0;
            if (y < -WINDOW || y + o->height > WINDOW + 1)
                continue;
            while (anchors) {
                int x = lowest(anchors) - COL0;
                anchors &= anchors - 1;
                if (x >= -WINDOW && x + o->width <= WINDOW + 1)
                    if (push(out, x, y, rot, 0))
                        return -1;
            }
        }
    }
    starts[ns++] = out->n;

    int highest = b->nlevels;
    if (max_level >= 0 && max_level < highest)
        highest = max_level;
    for (int level = 1; level <= highest; level++) {
        const row_t *below = b->lv[level - 1].top;
        const row_t *neighbours = NULL;
        if (level < b->nlevels && !loose) {
            neighbours = b->lv[level].nb;
            int any = 0;
            for (int r = b->rmin - 1; r <= b->rmax + 1 && !any; r++)
                any = neighbours[r] != 0;
            if (!any)
                neighbours = NULL;
        }
        for (int rot = 0; rot < nrot; rot++) {
            const Orient *o = &orients[sid][rot];
            for (int r = b->rmin - 3; r <= b->rmax; r++) {
                row_t anchors = ~(row_t)0;
                for (int k = 0; k < o->ncells && anchors; k++)
                    anchors &= below[r + o->cy[k]] >> o->cx[k];
                if (!anchors)
                    continue;
                if (neighbours) {
                    row_t touching = 0;
                    for (int k = 0; k < o->ncells; k++)
                        touching |= neighbours[r + o->cy[k]] >> o->cx[k];
                    anchors &= touching;
                }
                while (anchors) {
                    int col = lowest(anchors);
                    anchors &= anchors - 1;
                    int legal = one;
                    if (!legal) {
                        int support = b->topidx[r + o->cy[0]][col + o->cx[0]];
                        for (int k = 1; k < o->ncells; k++)
                            if (b->topidx[r + o->cy[k]][col + o->cx[k]] != support) {
                                legal = 1;
                                break;
                            }
                    }
                    if (legal && push(out, col - COL0, r - ROW0, rot, level))
                        return -1;
                }
            }
        }
        starts[ns++] = out->n;
    }
    return ns;
}

/* ------------------------------------------------------------------ the valuation */

/* policy._edges over rows r0 .. r0 + h - 1 of the mask. */
HOT int edges(const row_t *m, int h, const row_t *other, int r0)
{
    int n = 0;
    for (int k = 0; k < h; k++) {
        row_t mk = m[k];
        int r = r0 + k;
        n += popcount(mk << 1 & other[r]) + popcount(mk >> 1 & other[r]) +
             popcount(mk & other[r + 1]) + popcount(mk & other[r - 1]);
    }
    return n;
}

/* policy._holes, policy._thick and policy._fit counted over the rows lo .. hi of ``t``
 * (indices into a small buffer); each reads at most two rows either side. */
HOT int holes_rows(const row_t *t, int lo, int hi)
{
    int n = 0;
    for (int r = lo; r <= hi; r++) {
        row_t x = t[r], left = x << 1, right = x >> 1, up = t[r - 1], down = t[r + 1];
        row_t three = (left & right & (up | down)) | (up & down & (left | right));
        n += popcount(three & ~x);
    }
    return n;
}

HOT row_t block2(const row_t *t, int r)
{
    return t[r] & t[r] >> 1 & t[r + 1] & t[r + 1] >> 1;
}

HOT int thick_rows(const row_t *t, int lo, int hi)
{
    int n = 0;
    for (int r = lo; r <= hi; r++) {
        row_t here = block2(t, r), above = block2(t, r - 1);
        here |= here << 1;
        above |= above << 1;
        n += popcount(here | above);
    }
    return n;
}

HOT int fit_rows(const row_t *t, int lo, int hi)
{
    int n = 0;
    for (int r = lo; r <= hi; r++) {
        row_t two0 = t[r] & t[r] >> 1, two1 = t[r + 1] & t[r + 1] >> 1;
        row_t two2 = t[r + 2] & t[r + 2] >> 1;
        row_t three0 = two0 & t[r] >> 2, three1 = two1 & t[r + 1] >> 2;
        n += popcount(two0 & two1 & two2) + popcount(three0 & three1);
    }
    return n;
}

/* Buffer rows: index i is board row r0 - 3 + i; the mask covers indices 3 .. 3 + h - 1. */
#define BUF 12

HOT int holes_diff(const row_t *old, const row_t *new, int h)
{
    return holes_rows(new, 2, h + 3) - holes_rows(old, 2, h + 3);
}

HOT int thick_diff(const row_t *old, const row_t *new, int h)
{
    return thick_rows(new, 2, h + 3) - thick_rows(old, 2, h + 3);
}

HOT int fit_diff(const row_t *old, const row_t *new, int h)
{
    return fit_rows(new, 1, h + 2) - fit_rows(old, 1, h + 2);
}

/* policy._score of one candidate. ``area`` holds the context's area per level. */
HOT double score_one(const Board *b, const Weights *w, const double *area, double phase,
                        int sid, const Cand *cand, int best_level)
{
    const Orient *o = &orients[sid][cand->rot];
    int h = o->height, r0 = cand->y + ROW0, c = cand->x + COL0, level = cand->level;
    int number = values[sid];
    row_t m[4];
    for (int k = 0; k < h; k++)
        m[k] = (row_t)o->rowbits[k] << c;
    const Level *here = &b->lv[level];

    double score = w->points * number * level + w->climb * phase * level;
    score -= w->waste * number * (best_level - level);
    double gained = area[level] - (level ? area[level - 1] : 0.0);
    score += phase * o->ncells * gained;
    score += w->contact * edges(m, h, here->occ, r0);

    row_t old[BUF] = {0}, new[BUF] = {0};
    int base = r0 - 3, rows = h + 6;
    for (int i = 0; i < rows; i++)
        old[i] = new[i] = here->occ[base + i];
    for (int k = 0; k < h; k++)
        new[3 + k] |= m[k];
    score -= w->holes * (holes_diff(old, new, h));

    row_t lower_old[BUF] = {0}, rest[BUF] = {0};
    if (level) {
        const row_t *lower = b->lv[level - 1].top;
        for (int i = 0; i < rows; i++)
            lower_old[i] = rest[i] = lower[base + i];
        for (int k = 0; k < h; k++)
            rest[3 + k] &= ~m[k];
        score -= w->exposed * phase * edges(m, h, rest, 3);
    }
    if (w->thick != 0.0 || w->fit != 0.0) {
        for (int i = 0; i < rows; i++)
            old[i] = new[i] = here->top[base + i];
        for (int k = 0; k < h; k++)
            new[3 + k] |= m[k];
    }
    if (w->thick != 0.0) {
        double upper = area[level] * (thick_diff(old, new, h));
        if (level)
            upper += area[level - 1] * (thick_diff(lower_old, rest, h));
        score += w->thick * phase * upper;
    }
    if (w->fit != 0.0) {
        double upper = area[level] * (fit_diff(old, new, h));
        if (level)
            upper += area[level - 1] * (fit_diff(lower_old, rest, h));
        score += w->fit * phase * upper;
    }
    return score;
}

/* The context's area per level 0 .. height: area[min(level, len(area) - 1)]. */
HOT void context_area(const Board *b, const Weights *w, double *area)
{
    for (int level = 0; level <= b->nlevels; level++)
        area[level] = w->area[level < w->narea - 1 ? level : w->narea - 1];
}

/* Values every candidate of ``list`` (generated for shape ``sid`` on ``b``). */
HOT void score_all_body(const Board *b, const Weights *w, int remaining, int sid, Cands *list)
{
    double area[MAXL + 2];
    double phase = (double)remaining / 19.0;
    context_area(b, w, area);
    int best_level = list->c[list->n - 1].level;
    for (Py_ssize_t i = 0; i < list->n; i++)
        list->v[i] = score_one(b, w, area, phase, sid, &list->c[i], best_level);
}

typedef void (*score_all_fn)(const Board *, const Weights *, int, int, Cands *);

static void score_all_plain(const Board *b, const Weights *w, int remaining, int sid, Cands *list)
{
    score_all_body(b, w, remaining, sid, list);
}

#ifdef POPCNT_CLONES
__attribute__((target("popcnt"))) static void score_all_popcnt(const Board *b, const Weights *w,
                                                               int remaining, int sid,
                                                               Cands *list)
{
    score_all_body(b, w, remaining, sid, list);
}
#endif

static score_all_fn score_all = score_all_plain;

/* The index of the policy's choice among the valued candidates: the first whose value is
 * within 1e-9 of the best. */
static Py_ssize_t first_best(const double *v, Py_ssize_t n)
{
    double top = v[0];
    for (Py_ssize_t i = 1; i < n; i++)
        if (v[i] > top)
            top = v[i];
    for (Py_ssize_t i = 0; i < n; i++)
        if (v[i] > top - 1e-9)
            return i;
    return 0;
}

/* ------------------------------------------------------------------ arguments */

static int read_double(PyObject *seq, Py_ssize_t i, double *out)
{
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    *out = PyFloat_AsDouble(item);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* (points, area, contact, exposed, holes, thick, fit, waste, climb) */
static int read_weights(PyObject *obj, Weights *w)
{
    PyObject *seq = PySequence_Fast(obj, "weights must be a sequence");
    if (seq == NULL)
        return -1;
    int result = -1;
    if (PySequence_Fast_GET_SIZE(seq) != 9) {
        PyErr_SetString(PyExc_ValueError, "weights must have 9 entries");
        goto done;
    }
    if (read_double(seq, 0, &w->points) || read_double(seq, 2, &w->contact) ||
        read_double(seq, 3, &w->exposed) || read_double(seq, 4, &w->holes) ||
        read_double(seq, 5, &w->thick) || read_double(seq, 6, &w->fit) ||
        read_double(seq, 7, &w->waste) || read_double(seq, 8, &w->climb))
        goto done;
    PyObject *area = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, 1), "area must be a sequence");
    if (area == NULL)
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(area);
    if (n < 1 || n > MAXAREA) {
        PyErr_SetString(PyExc_ValueError, "area must have 1 to 64 entries");
        Py_DECREF(area);
        goto done;
    }
    w->narea = (int)n;
    for (Py_ssize_t i = 0; i < n; i++)
        if (read_double(area, i, &w->area[i])) {
            Py_DECREF(area);
            goto done;
        }
    Py_DECREF(area);
    result = 0;
done:
    Py_DECREF(seq);
    return result;
}

static int check_shape(int sid)
{
    if (nshapes == 0) {
        PyErr_SetString(PyExc_RuntimeError, "the kernel's setup() was not called");
        return -1;
    }
    if (sid < 0 || sid >= nshapes) {
        PyErr_SetString(PyExc_ValueError, "bad shape index");
        return -1;
    }
    return 0;
}

/* Claims the scratch space: 1 if free (then built), 0 if the kernel is busy (None). */
static int claim(void)
{
    if (busy)
        return 0;
    for (int i = 0; i < 2; i++)
        if (scratch[i] == NULL) {
            scratch[i] = PyMem_Malloc(sizeof(Board));
            if (scratch[i] == NULL) {
                PyErr_NoMemory();
                return -1;
            }
        }
    busy = 1;
    return 1;
}

#define RELEASE_AND(value) \
    do {                   \
        busy = 0;          \
        return (value);    \
    } while (0)

/* ------------------------------------------------------------------ module functions */

static PyObject *k_setup(PyObject *self, PyObject *args)
{
    PyObject *orientations, *rotations, *vals;
    if (!PyArg_ParseTuple(args, "OOO", &orientations, &rotations, &vals))
        return NULL;
    Py_ssize_t n = PySequence_Size(orientations);
    if (n < 0)
        return NULL;
    if (n > MAXSHAPES || PySequence_Size(rotations) != n || PySequence_Size(vals) != n) {
        PyErr_SetString(PyExc_ValueError, "bad shape tables");
        return NULL;
    }
    for (Py_ssize_t s = 0; s < n; s++) {
        PyObject *rot_n = PySequence_GetItem(rotations, s);
        PyObject *val = PySequence_GetItem(vals, s);
        PyObject *by_rotation = PySequence_GetItem(orientations, s);
        if (rot_n == NULL || val == NULL || by_rotation == NULL)
            goto fail_item;
        rotations_of[s] = (int)PyLong_AsLong(rot_n);
        values[s] = (int)PyLong_AsLong(val);
        if (PyErr_Occurred() || rotations_of[s] < 1 || rotations_of[s] > 4 ||
            PySequence_Size(by_rotation) != 4)
            goto fail_item;
        for (Py_ssize_t r = 0; r < 4; r++) {
            PyObject *cells = PySequence_GetItem(by_rotation, r);
            if (cells == NULL)
                goto fail_item;
            Orient *o = &orients[s][r];
            memset(o, 0, sizeof(*o));
            Py_ssize_t nc = PySequence_Size(cells);
            if (nc < 1 || nc > MAXCELLS) {
                Py_DECREF(cells);
                goto fail_item;
            }
            o->ncells = (int)nc;
            for (Py_ssize_t k = 0; k < nc; k++) {
                PyObject *cell = PySequence_GetItem(cells, k);
                int cx = -1, cy = -1;
                if (cell != NULL && !PyArg_ParseTuple(cell, "ii", &cx, &cy))
                    PyErr_Clear();
                Py_XDECREF(cell);
                if (cx < 0 || cx > 3 || cy < 0 || cy > 3) {
                    Py_DECREF(cells);
                    goto fail_item;
                }
                o->cx[k] = cx;
                o->cy[k] = cy;
                o->rowbits[cy] |= 1u << cx;
                if (cx + 1 > o->width)
                    o->width = cx + 1;
                if (cy + 1 > o->height)
                    o->height = cy + 1;
            }
            Py_DECREF(cells);
        }
        Py_DECREF(rot_n);
        Py_DECREF(val);
        Py_DECREF(by_rotation);
        continue;
    fail_item:
        Py_XDECREF(rot_n);
        Py_XDECREF(val);
        Py_XDECREF(by_rotation);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "bad shape tables");
        nshapes = 0;
        return NULL;
    }
    nshapes = (int)n;
    Py_RETURN_NONE;
}

static PyObject *coords_list(const Cands *list)
{
    PyObject *out = PyList_New(list->n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < list->n; i++) {
        const Cand *c = &list->c[i];
        PyObject *item = Py_BuildValue("(iii)", c->x, c->y, c->rot);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

PyDoc_STRVAR(generate_doc,
             "generate(tiles, shapes, sid, max_level, one, loose) -> ([(x, y, rotation)], starts)\n\n"
             "Board._generate for a display given by Board._tiles and Board._shapes (max_level\n"
             "-1 for none), or None where the kernel cannot answer.");

static PyObject *k_generate(PyObject *self, PyObject *args)
{
    PyObject *tiles, *shapes;
    int sid, max_level, one, loose;
    if (!PyArg_ParseTuple(args, "OOiipp", &tiles, &shapes, &sid, &max_level, &one, &loose))
        return NULL;
    if (check_shape(sid))
        return NULL;
    int claimed = claim();
    if (claimed <= 0)
        return claimed ? NULL : Py_NewRef(Py_None);
    Board *b = scratch[0];
    int built = board_build(b, tiles, shapes);
    if (built)
        RELEASE_AND(built < 0 ? NULL : Py_NewRef(Py_None));
    Py_ssize_t starts[MAXL + 3];
    int ns = generate(b, sid, max_level, one, loose, &lists[0], starts);
    if (ns < 0)
        RELEASE_AND(NULL);
    PyObject *coords = coords_list(&lists[0]);
    PyObject *bounds = coords ? PyList_New(ns) : NULL;
    if (bounds == NULL) {
        Py_XDECREF(coords);
        RELEASE_AND(NULL);
    }
    for (int i = 0; i < ns; i++)
        PyList_SET_ITEM(bounds, i, PyLong_FromSsize_t(starts[i]));
    busy = 0;
    if (PyErr_Occurred()) {
        Py_DECREF(coords);
        Py_DECREF(bounds);
        return NULL;
    }
    PyObject *result = PyTuple_Pack(2, coords, bounds);
    Py_DECREF(coords);
    Py_DECREF(bounds);
    return result;
}

typedef struct {
    double v;
    Py_ssize_t i;
} Ranked;

static int ranked_order(const void *a, const void *b)
{
    const Ranked *x = a, *y = b;
    if (x->v > y->v)
        return -1;
    if (x->v < y->v)
        return 1;
    return (x->i > y->i) - (x->i < y->i);
}

PyDoc_STRVAR(scored_doc,
             "scored(tiles, shapes, sid, max_level, one, loose, remaining, weights, best)\n"
             "-> [(x, y, rotation, level, value)]\n\n"
             "policy.scored_moves: every legal placement with its level and value, in the\n"
             "move order; with best > 0 only the best ``best`` of them, best first (ties in the\n"
             "move order). None where the kernel cannot answer.");

static PyObject *k_scored(PyObject *self, PyObject *args)
{
    PyObject *tiles, *shapes, *weights;
    int sid, max_level, one, loose, remaining;
    Py_ssize_t best;
    if (!PyArg_ParseTuple(args, "OOiippiOn", &tiles, &shapes, &sid, &max_level, &one, &loose,
                          &remaining, &weights, &best))
        return NULL;
    Weights w;
    if (check_shape(sid) || read_weights(weights, &w))
        return NULL;
    int claimed = claim();
    if (claimed <= 0)
        return claimed ? NULL : Py_NewRef(Py_None);
    Board *b = scratch[0];
    int built = board_build(b, tiles, shapes);
    if (built)
        RELEASE_AND(built < 0 ? NULL : Py_NewRef(Py_None));
    Py_ssize_t starts[MAXL + 3];
    Cands *list = &lists[0];
    if (generate(b, sid, max_level, one, loose, list, starts) < 0)
        RELEASE_AND(NULL);
    if (list->n == 0)
        RELEASE_AND(PyList_New(0));
    score_all(b, &w, remaining, sid, list);
    Py_ssize_t n = list->n;
    Ranked *ranked = NULL;
    if (best > 0) {
        ranked = PyMem_Malloc(n * sizeof(Ranked));
        if (ranked == NULL) {
            PyErr_NoMemory();
            RELEASE_AND(NULL);
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            ranked[i].v = list->v[i];
            ranked[i].i = i;
        }
        qsort(ranked, n, sizeof(Ranked), ranked_order);
        if (best < n)
            n = best;
    }
    PyObject *out = PyList_New(n);
    for (Py_ssize_t j = 0; out != NULL && j < n; j++) {
        Py_ssize_t i = ranked ? ranked[j].i : j;
        const Cand *c = &list->c[i];
        PyObject *item = Py_BuildValue("(iiiid)", c->x, c->y, c->rot, c->level, list->v[i]);
        if (item == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, j, item);
    }
    PyMem_Free(ranked);
    RELEASE_AND(out);
}

/* policy._best_next: the expected value of the best placement of the next tile on ``b``.
 * ``numbers``/``counts``: the supply in its order. 0, 1 when unanswerable, -1 on error. */
HOT int best_next_body(const Board *b, const Weights *w, const int *numbers, const long *counts,
                      int nsupply, double *out)
{
    long total = 0;
    for (int i = 0; i < nsupply; i++)
        total += counts[i];
    double area[MAXL + 2];
    double phase = (double)(total - 1) / 19.0;
    context_area(b, w, area);
    double expected = 0.0;
    Py_ssize_t starts[MAXL + 3];
    Cands *list = &lists[1];
    for (int i = 0; i < nsupply; i++) {
        if (!counts[i])
            continue;
        if (total == 0)
            return 1;
        if (generate(b, numbers[i], -1, 0, 0, list, starts) < 0)
            return -1;
        if (list->n == 0)
            return 1;
        int best_level = list->c[list->n - 1].level;
        double best = 0.0;
        for (Py_ssize_t j = 0; j < list->n; j++) {
            double v = score_one(b, w, area, phase, numbers[i], &list->c[j], best_level);
            if (j == 0 || v > best)
                best = v;
        }
        expected += (double)counts[i] / (double)total * best;
    }
    *out = expected;
    return 0;
}

typedef int (*best_next_fn)(const Board *, const Weights *, const int *, const long *, int,
                           double *);

static int best_next_plain(const Board *b, const Weights *w, const int *numbers,
                           const long *counts, int nsupply, double *out)
{
    return best_next_body(b, w, numbers, counts, nsupply, out);
}

#ifdef POPCNT_CLONES
__attribute__((target("popcnt"))) static int best_next_popcnt(const Board *b, const Weights *w,
                                                              const int *numbers,
                                                              const long *counts, int nsupply,
                                                              double *out)
{
    return best_next_body(b, w, numbers, counts, nsupply, out);
}
#endif

static best_next_fn best_next = best_next_plain;

PyDoc_STRVAR(choose_doc,
             "choose(tiles, shapes, number, remaining, weights, lookahead, supply)\n"
             "-> [(x, y, rotation)]\n\n"
             "policy.choose for an upright number tile under the plain rules: the placements\n"
             "tied for the best value (within 1e-9), in the move order. ``supply``: the\n"
             "(number, count) pairs of the tiles that may follow, used with lookahead > 0.\n"
             "None where the kernel cannot answer.");

static PyObject *k_choose(PyObject *self, PyObject *args)
{
    PyObject *tiles, *shapes, *weights, *supply;
    int number, remaining, lookahead;
    if (!PyArg_ParseTuple(args, "OOiiOiO", &tiles, &shapes, &number, &remaining, &weights,
                          &lookahead, &supply))
        return NULL;
    Weights w;
    if (check_shape(number) || read_weights(weights, &w))
        return NULL;
    int numbers[16];
    long counts[16];
    int nsupply = 0;
    if (supply != Py_None) {
        PyObject *seq = PySequence_Fast(supply, "supply must be a sequence of pairs");
        if (seq == NULL)
            return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        if (n > 16) {
            Py_DECREF(seq);
            Py_RETURN_NONE;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            int num;
            long count;
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "il", &num, &count)) {
                Py_DECREF(seq);
                return NULL;
            }
            if (num < 0 || num > 9) {
                Py_DECREF(seq);
                Py_RETURN_NONE;
            }
            numbers[nsupply] = num;
            counts[nsupply++] = count;
        }
        Py_DECREF(seq);
    }
    int claimed = claim();
    if (claimed <= 0)
        return claimed ? NULL : Py_NewRef(Py_None);
    Board *b = scratch[0], *after = scratch[1];
    int built = board_build(b, tiles, shapes);
    if (built)
        RELEASE_AND(built < 0 ? NULL : Py_NewRef(Py_None));
    Py_ssize_t starts[MAXL + 3];
    Cands *list = &lists[0];
    if (generate(b, number, -1, 0, 0, list, starts) < 0)
        RELEASE_AND(NULL);
    Py_ssize_t n = list->n;
    if (n == 0)
        RELEASE_AND(Py_NewRef(Py_None));
    score_all(b, &w, remaining, number, list);
    double *v = list->v;
    double *looked = NULL;
    if (lookahead > 0 && remaining > 0 && n > 1 && supply != Py_None) {
        Ranked *ranked = PyMem_Malloc(n * sizeof(Ranked));
        looked = PyMem_Malloc(n * sizeof(double));
        if (ranked == NULL || looked == NULL) {
            PyMem_Free(ranked);
            PyMem_Free(looked);
            PyErr_NoMemory();
            RELEASE_AND(NULL);
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            ranked[i].v = v[i];
            ranked[i].i = i;
            looked[i] = -INFINITY;
        }
        qsort(ranked, n, sizeof(Ranked), ranked_order);
        Py_ssize_t k = lookahead < n ? lookahead : n;
        for (Py_ssize_t j = 0; j < k; j++) {
            Py_ssize_t i = ranked[j].i;
            const Cand *c = &list->c[i];
            board_copy(after, b);
            double next = 0.0;
            int status = board_add(after, number, c->rot, c->x, c->y, c->level);
            if (!status)
                status = best_next(after, &w, numbers, counts, nsupply, &next);
            if (status) {
                PyMem_Free(ranked);
                PyMem_Free(looked);
                RELEASE_AND(status < 0 ? NULL : Py_NewRef(Py_None));
            }
            looked[i] = v[i] + next;
        }
        PyMem_Free(ranked);
        v = looked;
    }
    double top = v[0];
    for (Py_ssize_t i = 1; i < n; i++)
        if (v[i] > top)
            top = v[i];
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        if (!(v[i] > top - 1e-9))
            continue;
        const Cand *c = &list->c[i];
        PyObject *item = Py_BuildValue("(iii)", c->x, c->y, c->rot);
        if (item == NULL || PyList_Append(out, item) < 0)
            Py_CLEAR(out);
        Py_XDECREF(item);
    }
    PyMem_Free(looked);
    RELEASE_AND(out);
}

PyDoc_STRVAR(playout_doc,
             "playout(tiles, shapes, order, weights) -> int\n\n"
             "bots._playout: the final score when the policy (no lookahead, no rng) places the\n"
             "upright number tiles of ``order`` on the display. None where the kernel cannot\n"
             "answer.");

static PyObject *k_playout(PyObject *self, PyObject *args)
{
    PyObject *tiles, *shapes, *order, *weights;
    if (!PyArg_ParseTuple(args, "OOOO", &tiles, &shapes, &order, &weights))
        return NULL;
    Weights w;
    if (check_shape(0))
        return NULL;
    if (read_weights(weights, &w))
        return NULL;
    PyObject *seq = PySequence_Fast(order, "order must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int numbers[64];
    if (n > 64) {
        Py_DECREF(seq);
        Py_RETURN_NONE;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long number = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (number == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (number < 0 || number > 9) {
            Py_DECREF(seq);
            Py_RETURN_NONE;
        }
        numbers[i] = (int)number;
    }
    Py_DECREF(seq);
    int claimed = claim();
    if (claimed <= 0)
        return claimed ? NULL : Py_NewRef(Py_None);
    Board *b = scratch[0];
    int built = board_build(b, tiles, shapes);
    if (built)
        RELEASE_AND(built < 0 ? NULL : Py_NewRef(Py_None));
    Py_ssize_t starts[MAXL + 3];
    Cands *list = &lists[0];
    for (Py_ssize_t i = 0; i < n; i++) {
        if (generate(b, numbers[i], -1, 0, 0, list, starts) < 0)
            RELEASE_AND(NULL);
        if (list->n == 0)
            RELEASE_AND(Py_NewRef(Py_None));
        score_all(b, &w, (int)(n - i - 1), numbers[i], list);
        const Cand *c = &list->c[first_best(list->v, list->n)];
        if (board_add(b, numbers[i], c->rot, c->x, c->y, c->level))
            RELEASE_AND(Py_NewRef(Py_None));
    }
    RELEASE_AND(PyLong_FromLong(b->score));
}

static PyMethodDef methods[] = {
    {"setup", k_setup, METH_VARARGS,
     "setup(orientations, rotations_of, values): the shape tables of games.nmbr9.tiles."},
    {"generate", k_generate, METH_VARARGS, generate_doc},
    {"scored", k_scored, METH_VARARGS, scored_doc},
    {"choose", k_choose, METH_VARARGS, choose_doc},
    {"playout", k_playout, METH_VARARGS, playout_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "games.nmbr9._kernel",
    "The compiled kernel of the NMBR 9 engine (see games/nmbr9/kernel.py).",
    -1,
    methods,
};

PyMODINIT_FUNC PyInit__kernel(void)
{
    str_x = PyUnicode_InternFromString("x");
    str_y = PyUnicode_InternFromString("y");
    str_rotation = PyUnicode_InternFromString("rotation");
    if (str_x == NULL || str_y == NULL || str_rotation == NULL)
        return NULL;
#ifdef POPCNT_CLONES
    __builtin_cpu_init();
    if (__builtin_cpu_supports("popcnt")) {
        score_all = score_all_popcnt;
        best_next = best_next_popcnt;
    }
#endif
    return PyModule_Create(&module);
}
