/* >>plan =================================================================================== */
/* aicf_plan_create runs these passes on a private copy of the graph:
     1. bind check: every graph input has a fully known shape;
     2. shape inference in node order (ONNX graphs are topologically sorted; the builder
        enforces it), folding every node whose inputs are all constants (and Shape, whose
        value is known once shapes are) by running its CPU reference at plan time; an If whose
        condition is then a constant is replaced by the nodes of the branch it selects, which
        inference reaches next (aicf__inline_if); Loop and Scan are refused;
     3. BatchNormalization folded into the Conv that feeds it;
     4. dead node elimination;
     5. steps in node order; for float16 storage, cast steps at the input/output boundary;
     6. aliasing: Reshape-like ops share their input's storage;
     7. memory plan: one arena, offsets by greedy-by-size placement over tensor lifetimes
        (Pisarchyk & Lee, "Efficient Memory Management for Deep Neural Net Inference", 2020);
        weights in their own buffer;
     8. a kernel for every step, chosen by the backend, with the reason. */

#define AICF__ALIGN 256u

static size_t aicf__align_up(size_t x) { return (x + (AICF__ALIGN - 1)) & ~(size_t)(AICF__ALIGN - 1); }

static aicf_result aicf__graph_clone(const aicf_graph* src, aicf_graph** out);

/* Deep copy of attribute sa into a (strings, arrays, subgraphs); `tensor` is the index of a
   TENSOR attribute's constant in the destination graph. Returns AICF_SUCCESS or
   AICF_ERROR_OUT_OF_MEMORY (a is left freeable either way). */
static aicf_result aicf__attr_clone(aicf_context* ctx, const aicf__attrv* sa, aicf__attrv* a, int tensor) {
    int k;
    memset(a, 0, sizeof *a);
    a->type = sa->type;
    a->i = sa->i;
    a->f = sa->f;
    a->count = sa->count;
    a->tensor = tensor;
    a->name = aicf__strdup(ctx, sa->name);
    if (!a->name) return AICF_ERROR_OUT_OF_MEMORY;
    if (sa->s && !(a->s = aicf__strdup(ctx, sa->s))) return AICF_ERROR_OUT_OF_MEMORY;
    if (sa->ints) {
        a->ints = (int64_t*)aicf__calloc(ctx, (size_t)sa->count + 1, sizeof(int64_t));
        if (!a->ints) return AICF_ERROR_OUT_OF_MEMORY;
        memcpy(a->ints, sa->ints, (size_t)sa->count * sizeof(int64_t));
    }
    if (sa->floats) {
        a->floats = (float*)aicf__calloc(ctx, (size_t)sa->count + 1, sizeof(float));
        if (!a->floats) return AICF_ERROR_OUT_OF_MEMORY;
        memcpy(a->floats, sa->floats, (size_t)sa->count * sizeof(float));
    }
    if (sa->strings) {
        a->strings = (char**)aicf__calloc(ctx, (size_t)sa->count + 1, sizeof(char*));
        if (!a->strings) return AICF_ERROR_OUT_OF_MEMORY;
        for (k = 0; k < sa->count; k++)
            if (!(a->strings[k] = aicf__strdup(ctx, sa->strings[k]))) return AICF_ERROR_OUT_OF_MEMORY;
    }
    if (sa->type == AICF_ATTR_GRAPH && sa->g && aicf__graph_clone(sa->g, &a->g) != AICF_SUCCESS)
        return AICF_ERROR_OUT_OF_MEMORY;
    return AICF_SUCCESS;
}

/* Deep copy of a graph (constants and subgraph attributes copied). */
static aicf_result aicf__graph_clone(const aicf_graph* src, aicf_graph** out) {
    aicf_context* ctx = src->ctx;
    aicf_graph* g;
    int i, j;
    aicf_result r = aicf_graph_create(ctx, &g);
    if (r != AICF_SUCCESS) return r;
    g->opset = src->opset;
    g->is_subgraph = src->is_subgraph;
#define AICF__CLONE_ARR(field, n, cap, type)                                                       \
    if (src->n) {                                                                                  \
        g->field = (type*)aicf__calloc(ctx, (size_t)src->n, sizeof(type));                         \
        if (!g->field) goto oom;                                                                   \
        memcpy(g->field, src->field, (size_t)src->n * sizeof(type));                               \
        g->n = g->cap = src->n;                                                                    \
    }
    AICF__CLONE_ARR(inputs, n_inputs, cap_inputs, int)
    AICF__CLONE_ARR(outputs, n_outputs, cap_outputs, int)
#undef AICF__CLONE_ARR
    g->tensors = (aicf__tensor*)aicf__calloc(ctx, (size_t)src->n_tensors + 1, sizeof(aicf__tensor));
    if (!g->tensors) goto oom;
    g->cap_tensors = src->n_tensors + 1;
    for (i = 0; i < src->n_tensors; i++) {
        const aicf__tensor* s = &src->tensors[i];
        aicf__tensor* t = &g->tensors[i];
        *t = *s;
        t->name = NULL;
        t->data = NULL;
        t->owns_data = 0;
        for (j = 0; j < AICF_MAX_RANK; j++) t->dim_param[j] = NULL;
        g->n_tensors = i + 1;
        t->name = aicf__strdup(ctx, s->name);
        if (!t->name) goto oom;
        for (j = 0; j < AICF_MAX_RANK; j++)
            if (s->dim_param[j]) {
                t->dim_param[j] = aicf__strdup(ctx, s->dim_param[j]);
                if (!t->dim_param[j]) goto oom;
            }
        if (s->data) {
            t->data = aicf__malloc(ctx, s->data_bytes);
            if (!t->data) goto oom;
            if (s->data_bytes) memcpy(t->data, s->data, s->data_bytes);
            t->owns_data = 1;
        }
    }
    if (src->name_index_cap && !aicf__index_rebuild(g, src->name_index_cap)) goto oom;
    g->nodes = (aicf__node*)aicf__calloc(ctx, (size_t)src->n_nodes + 1, sizeof(aicf__node));
    if (!g->nodes) goto oom;
    g->cap_nodes = src->n_nodes + 1;
    for (i = 0; i < src->n_nodes; i++) {
        const aicf__node* s = &src->nodes[i];
        aicf__node* n = &g->nodes[i];
        memset(n, 0, sizeof *n);
        g->n_nodes = i + 1;
        n->op = s->op;
        n->removed = s->removed;
        n->name = aicf__strdup(ctx, s->name);
        n->op_type = aicf__strdup(ctx, s->op_type);
        n->domain = aicf__strdup(ctx, s->domain);
        n->in = (int*)aicf__calloc(ctx, (size_t)s->n_in + 1, sizeof(int));
        n->out = (int*)aicf__calloc(ctx, (size_t)s->n_out + 1, sizeof(int));
        n->attrs = (aicf__attrv*)aicf__calloc(ctx, (size_t)s->n_attrs + 1, sizeof(aicf__attrv));
        if (!n->name || !n->op_type || !n->domain || !n->in || !n->out || !n->attrs) goto oom;
        n->n_in = s->n_in;
        n->n_out = s->n_out;
        if (s->n_in) memcpy(n->in, s->in, (size_t)s->n_in * sizeof(int));
        memcpy(n->out, s->out, (size_t)s->n_out * sizeof(int));
        for (j = 0; j < s->n_attrs; j++) {
            n->n_attrs = j + 1;
            if (aicf__attr_clone(ctx, &s->attrs[j], &n->attrs[j], s->attrs[j].tensor) != AICF_SUCCESS) goto oom;
        }
    }
    *out = g;
    return AICF_SUCCESS;
oom:
    aicf_graph_destroy(g);
    return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory copying the graph");
}

/* Marks node ni's outputs constant by running its CPU reference on constant inputs. */
static aicf_result aicf__fold_node(aicf_graph* g, int ni) {
    aicf__node* n = &g->nodes[ni];
    const void* in[AICF_MAX_NODE_IO];
    void* outp[AICF_MAX_NODE_IO];
    aicf_result r;
    int i;
    if (n->n_in > AICF_MAX_NODE_IO || n->n_out > AICF_MAX_NODE_IO) return AICF_ERROR_LIMIT;
    memset((void*)in, 0, sizeof in);
    memset(outp, 0, sizeof outp);
    for (i = 0; i < n->n_in; i++) in[i] = n->in[i] >= 0 ? g->tensors[n->in[i]].data : NULL;
    for (i = 0; i < n->n_out; i++) {
        aicf__tensor* t;
        int ok;
        size_t bytes;
        outp[i] = NULL;
        if (n->out[i] < 0) continue;
        t = &g->tensors[n->out[i]];
        bytes = aicf__shape_bytes(&t->shape, t->dtype, &ok);
        if (!ok)
            return aicf__err(g->ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): output '%s' is too large to fold", ni,
                             n->name, n->op_type, t->name);
        t->data = aicf__malloc(g->ctx, bytes);
        if (!t->data) return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (%s): out of memory folding",
                                       ni, n->name, n->op_type);
        t->owns_data = 1;
        t->data_bytes = bytes;
        outp[i] = t->data;
    }
    r = aicf__cpu_run(g, ni, in, outp);
    if (r != AICF_SUCCESS) return r;
    for (i = 0; i < n->n_out; i++)
        if (n->out[i] >= 0) g->tensors[n->out[i]].flags |= AICF__T_CONST;
    n->removed = 1;
    return AICF_SUCCESS;
}

static int aicf__is_const(const aicf_graph* g, int t) { return t >= 0 && (g->tensors[t].flags & AICF__T_CONST); }

/* Number of live nodes reading tensor t, plus one if it is a graph output. */
static int aicf__use_count(const aicf_graph* g, int t) {
    int i, j, c = 0;
    for (i = 0; i < g->n_nodes; i++) {
        const aicf__node* n = &g->nodes[i];
        if (n->removed) continue;
        for (j = 0; j < n->n_in; j++) c += n->in[j] == t;
    }
    for (i = 0; i < g->n_outputs; i++) c += g->outputs[i] == t;
    return c;
}

/* Adds a new owned float32 constant of `shape` (n values, uninitialised: the caller fills
   g->tensors[t].data). Returns the tensor, -1 out of memory. */
static int aicf__new_const_f32(aicf_graph* g, const char* name, const aicf__shape* shape, size_t n) {
    int t = aicf__graph_new_tensor(g, name);
    aicf__tensor* tt;
    if (t < 0) return -1;
    tt = &g->tensors[t];
    tt->dtype = AICF_DTYPE_FLOAT32;
    tt->shape = *shape;
    tt->shape_known = 1;
    tt->flags = AICF__T_CONST;
    tt->data = aicf__malloc(g->ctx, n * sizeof(float) + 1);
    if (!tt->data) return -1;
    tt->owns_data = 1;
    tt->data_bytes = n * sizeof(float);
    return t;
}

/* A constant this copy of the graph owns (folded at plan time, or an earlier fold's result) that
   no node but one reads and that is not a graph output: the reader may overwrite it. */
static int aicf__const_private(const aicf_graph* g, int t) {
    return t >= 0 && g->tensors[t].owns_data && (g->tensors[t].flags & AICF__T_CONST) && aicf__use_count(g, t) == 1;
}

/* Folds BatchNormalization(Conv(x, W, B)) into Conv(x, W', B'):
   W'[o] = W[o] * s[o], B'[o] = (B[o] - mean[o]) * s[o] + beta[o], s = scale / sqrt(var + eps).
   W' and B' overwrite W and B where the Conv is their only reader and this copy of the graph owns
   them (weights made by ConstantOfShape, say: no copy of the weights at all); otherwise they are
   new constants (the caller's initializers are never written). */
static aicf_result aicf__fold_batchnorm(aicf_graph* g, int* folded) {
    int bi;
    *folded = 0;
    for (bi = 0; bi < g->n_nodes; bi++) {
        aicf__node* bn = &g->nodes[bi];
        aicf__node* cv;
        int ci, k, cout, oc;
        int64_t per_oc;
        float eps;
        const float *W, *B = NULL, *sc, *be, *mu, *var;
        float *nw, *nb;
        aicf__shape bshape;
        char nm[96];
        int tw, tb;
        if (bn->removed || bn->op != AICF__OP_BatchNormalization || bn->n_in < 5 || bn->n_out < 1) continue;
        if (bn->n_out > 1) {
            int extra = 0;
            for (k = 1; k < bn->n_out; k++) extra |= bn->out[k] >= 0;
            if (extra) continue;
        }
        if (bn->in[0] < 0 || g->tensors[bn->in[0]].producer < 0) continue;
        ci = g->tensors[bn->in[0]].producer;
        cv = &g->nodes[ci];
        if (cv->removed || cv->op != AICF__OP_Conv || cv->n_in < 2) continue;
        if (aicf__use_count(g, bn->in[0]) != 1 || (g->tensors[bn->in[0]].flags & AICF__T_OUTPUT)) continue;
        if (!aicf__is_const(g, cv->in[1]) || (cv->n_in > 2 && cv->in[2] >= 0 && !aicf__is_const(g, cv->in[2]))) continue;
        for (k = 1; k < 5; k++)
            if (!aicf__is_const(g, bn->in[k]) || g->tensors[bn->in[k]].dtype != AICF_DTYPE_FLOAT32) break;
        if (k < 5) continue;
        if (g->tensors[cv->in[1]].dtype != AICF_DTYPE_FLOAT32) continue;
        if (cv->n_in > 2 && cv->in[2] >= 0 && g->tensors[cv->in[2]].dtype != AICF_DTYPE_FLOAT32) continue;
        cout = (int)g->tensors[cv->in[1]].shape.d[0];
        for (k = 1; k < 5; k++)
            if (aicf__shape_numel(&g->tensors[bn->in[k]].shape) != cout) break;
        if (k < 5) continue;
        per_oc = aicf__shape_numel(&g->tensors[cv->in[1]].shape) / (cout ? cout : 1);
        eps = aicf__attr_f(bn, "epsilon", 1e-5f);
        tw = cv->in[1];
        tb = cv->n_in > 2 ? cv->in[2] : -1;
        if (!aicf__const_private(g, tw)) {
            snprintf(nm, sizeof nm, "\x01" "bnfold%d.W", bi);
            if ((tw = aicf__new_const_f32(g, nm, &g->tensors[cv->in[1]].shape, (size_t)(per_oc * cout))) < 0)
                return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "BatchNormalization folding: out of memory");
        }
        if (tb < 0 || !aicf__const_private(g, tb)) {
            bshape.rank = 1;
            bshape.d[0] = cout;
            snprintf(nm, sizeof nm, "\x01" "bnfold%d.B", bi);
            if ((tb = aicf__new_const_f32(g, nm, &bshape, (size_t)cout)) < 0)
                return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "BatchNormalization folding: out of memory");
        }
        cv = &g->nodes[ci]; /* the tensors array may have moved, nodes did not, but be explicit */
        bn = &g->nodes[bi];
        W = (const float*)g->tensors[cv->in[1]].data;
        if (cv->n_in > 2 && cv->in[2] >= 0) B = (const float*)g->tensors[cv->in[2]].data;
        sc = (const float*)g->tensors[bn->in[1]].data;
        be = (const float*)g->tensors[bn->in[2]].data;
        mu = (const float*)g->tensors[bn->in[3]].data;
        var = (const float*)g->tensors[bn->in[4]].data;
        nw = (float*)g->tensors[tw].data; /* == W when in place: each element read, then written */
        nb = (float*)g->tensors[tb].data;
        for (oc = 0; oc < cout; oc++) {
            float s = sc[oc] / sqrtf(var[oc] + eps);
            int64_t e;
            for (e = 0; e < per_oc; e++) nw[oc * per_oc + e] = W[oc * per_oc + e] * s;
            nb[oc] = ((B ? B[oc] : 0.0f) - mu[oc]) * s + be[oc];
        }
        if (cv->n_in < 3) {
            int* nin = (int*)aicf__realloc(g->ctx, cv->in, (size_t)(cv->n_in + 1) * sizeof(int), 4 * sizeof(int));
            if (!nin) return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "BatchNormalization folding: out of memory");
            cv->in = nin;
            cv->n_in = 3;
        }
        cv->in[1] = tw;
        cv->in[2] = tb;
        /* the Conv now produces the BatchNormalization's output */
        g->tensors[cv->out[0]].producer = -1;
        cv->out[0] = bn->out[0];
        g->tensors[bn->out[0]].producer = ci;
        bn->removed = 1;
        (*folded)++;
    }
    return AICF_SUCCESS;
}

/* Removes nodes none of whose outputs reach a graph output. */
static void aicf__dead_nodes(aicf_graph* g) {
    unsigned char* live = (unsigned char*)aicf__calloc(g->ctx, (size_t)g->n_tensors + 1, 1);
    int i, j;
    if (!live) return; /* keep everything: correct, only slower */
    for (i = 0; i < g->n_outputs; i++) live[g->outputs[i]] = 1;
    for (i = g->n_nodes - 1; i >= 0; i--) {
        aicf__node* n = &g->nodes[i];
        int any = 0;
        if (n->removed) continue;
        for (j = 0; j < n->n_out; j++) any |= n->out[j] >= 0 && live[n->out[j]];
        if (!any) {
            n->removed = 1;
            continue;
        }
        for (j = 0; j < n->n_in; j++)
            if (n->in[j] >= 0) live[n->in[j]] = 1;
    }
    aicf__free(g->ctx, live);
}

/* Optional trailing outputs nobody reads (Dropout's mask, BatchNormalization's running
   statistics, MaxPool's indices) are dropped, so no backend has to produce them. */
static void aicf__drop_unused_outputs(aicf_graph* g) {
    int i, j;
    for (i = 0; i < g->n_nodes; i++) {
        aicf__node* n = &g->nodes[i];
        if (n->removed || (n->op != AICF__OP_Dropout && n->op != AICF__OP_BatchNormalization && n->op != AICF__OP_MaxPool))
            continue;
        for (j = 1; j < n->n_out; j++)
            if (n->out[j] >= 0 && aicf__use_count(g, n->out[j]) == 0) {
                g->tensors[n->out[j]].producer = -1;
                n->out[j] = -1;
            }
    }
}

/* ---- control flow: an If whose condition is known at plan time is inlined ----
   When shape inference reaches an If node whose condition is a constant (a bound input, or
   folded from one), the chosen branch's nodes are copied into the plan's graph right after the
   If: branch-local tensors get fresh names "<If name>/<then|else>/<name>", outer references
   become the enclosing graph's tensors of that name, branch initializers new constants, and one
   Identity per If output (an alias: no copy) makes the branch's outputs the If's. Inference then
   continues over the copied nodes, so constant folding, nested Ifs and every later pass see an
   ordinary graph. Loop and Scan bodies are not inlined: AICF_ERROR_UNSUPPORTED. */

/* "<prefix>/<name>" (an internal name's \x01 mark stays in front), made unique among g's tensors
   with "#k" when unique is set; a name over AICF_MAX_NAME falls back to "<prefix>/#<index>". */
static char* aicf__inline_name(aicf_graph* g, const char* prefix, const char* name, int index, int unique) {
    size_t cap = strlen(prefix) + strlen(name) + 48;
    char* s = (char*)aicf__malloc(g->ctx, cap);
    int k;
    if (!s) return NULL;
    for (k = 0;; k++) {
        const char* mark = name[0] == '\x01' ? "\x01" : "";
        const char* base = name[0] == '\x01' ? name + 1 : name;
        if (strlen(prefix) + strlen(base) + 16 > AICF_MAX_NAME) snprintf(s, cap, "%s%.2000s/#%d", mark, prefix, index);
        else snprintf(s, cap, "%s%s/%s", mark, prefix, base);
        if (k) {
            size_t len = strlen(s);
            snprintf(s + len, cap - len, "#%d", k);
        }
        if (!unique || aicf__graph_find(g, s) < 0) return s;
    }
}

/* In subgraph s, a copy of a graph nested (through `between`, innermost last) in branch b,
   renames the outer references to b's local tensors to the names those got in the plan's
   graph g (map: b's tensor index -> g's). A name that a graph in `between` defines itself is
   that graph's, not b's, and stays. */
static aicf_result aicf__inline_rename_outer(aicf_graph* s, const aicf_graph* b, const int* map, const aicf_graph* g,
                                             const aicf_graph** between, int n_between, int ni, const char* ifname) {
    aicf_context* ctx = g->ctx;
    int i, j, k, changed = 0;
    for (i = 0; i < s->n_tensors; i++) {
        aicf__tensor* t = &s->tensors[i];
        const char* nn;
        char* dup;
        int bt;
        if (!(t->flags & AICF__T_OUTER)) continue;
        for (k = 0; k < n_between; k++) {
            int x = aicf__graph_find(between[k], t->name);
            if (x >= 0 && !(between[k]->tensors[x].flags & AICF__T_OUTER)) break;
        }
        if (k < n_between) continue;
        bt = aicf__graph_find(b, t->name);
        if (bt < 0 || (b->tensors[bt].flags & AICF__T_OUTER) || map[bt] < 0) continue;
        nn = g->tensors[map[bt]].name;
        if (strcmp(nn, t->name) == 0) continue;
        if (aicf__graph_find(s, nn) >= 0)
            return aicf__err(ctx, AICF_ERROR_UNSUPPORTED,
                             "node %d '%s' (If): a nested subgraph already has a tensor named '%s', the name its outer "
                             "reference '%s' gets when the branch is inlined", ni, ifname, nn, t->name);
        dup = aicf__strdup(ctx, nn);
        if (!dup) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (If): out of memory inlining", ni, ifname);
        aicf__free(ctx, t->name);
        t->name = dup;
        changed = 1;
    }
    if (changed && !aicf__index_rebuild(s, s->name_index_cap))
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (If): out of memory inlining", ni, ifname);
    for (i = 0; i < s->n_nodes; i++)
        for (j = 0; j < s->nodes[i].n_attrs; j++) {
            aicf__attrv* a = &s->nodes[i].attrs[j];
            aicf_result r;
            if (a->type != AICF_ATTR_GRAPH || !a->g) continue;
            if (n_between + 1 > AICF_MAX_SUBGRAPH_DEPTH + 1)
                return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (If): subgraphs nested more than "
                                 "AICF_MAX_SUBGRAPH_DEPTH (%d) deep", ni, ifname, AICF_MAX_SUBGRAPH_DEPTH);
            between[n_between] = s;
            r = aicf__inline_rename_outer(a->g, b, map, g, between, n_between + 1, ni, ifname);
            if (r != AICF_SUCCESS) return r;
        }
    return AICF_SUCCESS;
}

/* Replaces If node ni (its condition a constant) by the nodes of the branch it selects. */
static aicf_result aicf__inline_if(aicf_graph* g, int ni) {
    aicf_context* ctx = g->ctx;
    const aicf__node* n = &g->nodes[ni];
    const aicf__tensor* ct;
    const aicf__attrv* br;
    const aicf_graph* b;
    const char* which;
    const char* ifname = n->name;
    char* prefix = NULL;
    char shp[160];
    int take, i, j, k = 0, n_new, n_id = 0, bt;
    int* map = NULL;
    aicf__node* nn = NULL;
    const aicf_graph* between[AICF_MAX_SUBGRAPH_DEPTH + 2];
    aicf_result r = AICF_SUCCESS;
    if (n->n_in != 1 || n->in[0] < 0)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): takes one input, the condition (has %d)", ni,
                         ifname, n->n_in);
    ct = &g->tensors[n->in[0]];
    if (!(ct->flags & AICF__T_CONST))
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED,
                         "node %d '%s' (If): condition '%s' is not known at plan time (bind the inputs it depends on "
                         "with aicf_graph_bind_input_value)", ni, ifname, ct->name);
    if (ct->dtype != AICF_DTYPE_BOOL)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): condition '%s' has data type %s, not bool", ni,
                         ifname, ct->name, aicf_dtype_name(ct->dtype));
    if (aicf__shape_numel(&ct->shape) != 1 || !ct->data || ct->data_bytes < 1)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): condition '%s' has shape %s, not one element",
                         ni, ifname, ct->name, aicf__shape_str(&ct->shape, shp, sizeof shp));
    take = ((const unsigned char*)ct->data)[0] != 0;
    which = take ? "then_branch" : "else_branch";
    br = aicf__attr(n, which);
    if (!br || br->type != AICF_ATTR_GRAPH || !br->g)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): the condition is %s but attribute '%s' (a "
                         "GRAPH) is missing", ni, ifname, take ? "true" : "false", which);
    b = br->g;
    if (b->n_inputs)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): %s declares %d inputs; If branches take none",
                         ni, ifname, which, b->n_inputs);
    if (b->n_outputs != n->n_out)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): %s has %d outputs, the node %d", ni, ifname,
                         which, b->n_outputs, n->n_out);
    for (j = 0; j < n->n_out; j++) n_id += n->out[j] >= 0;
    n_new = b->n_nodes + n_id;
    if (n_new > AICF_MAX_NODES - g->n_nodes)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (If): inlining %s makes more than AICF_MAX_NODES (%d) "
                         "nodes", ni, ifname, which, AICF_MAX_NODES);
    {
        char pre[64];
        const char* base = ifname;
        size_t cap;
        if (!base[0]) {
            snprintf(pre, sizeof pre, "If@%d", ni);
            base = pre;
        }
        cap = strlen(base) + 16;
        prefix = (char*)aicf__malloc(ctx, cap);
        map = (int*)aicf__malloc(ctx, ((size_t)b->n_tensors + 1) * sizeof(int));
        nn = (aicf__node*)aicf__calloc(ctx, (size_t)n_new + 1, sizeof(aicf__node));
        if (!prefix || !map || !nn) goto oom;
        snprintf(prefix, cap, "%s/%s", base, take ? "then" : "else");
    }
    /* tensors: outer references resolve by name, the rest are copied under fresh names */
    for (bt = 0; bt < b->n_tensors; bt++) {
        const aicf__tensor* s = &b->tensors[bt];
        aicf__tensor* tt;
        char* nm;
        int t;
        map[bt] = -1;
        if (s->flags & AICF__T_OUTER) {
            t = aicf__graph_find(g, s->name);
            if (t < 0) {
                r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL,
                              "node %d '%s' (If): %s reads '%s', which no enclosing graph defines", ni, ifname, which,
                              s->name);
                goto fail;
            }
            if (g->tensors[t].producer > ni) {
                r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL,
                              "node %d '%s' (If): %s reads '%s', which node %d computes after the If", ni, ifname, which,
                              s->name, g->tensors[t].producer);
                goto fail;
            }
            map[bt] = t;
            continue;
        }
        nm = aicf__inline_name(g, prefix, s->name, bt, 1);
        if (!nm) goto oom;
        t = aicf__graph_new_tensor(g, nm);
        aicf__free(ctx, nm);
        if (t < 0) {
            r = aicf__new_tensor_err(t);
            goto fail;
        }
        tt = &g->tensors[t];
        if (s->flags & AICF__T_CONST) {
            tt->dtype = s->dtype;
            tt->shape = s->shape;
            tt->shape_known = 1;
            tt->flags = AICF__T_CONST;
            tt->data = aicf__malloc(ctx, s->data_bytes ? s->data_bytes : 1);
            if (!tt->data) goto oom;
            if (s->data_bytes) memcpy(tt->data, s->data, s->data_bytes);
            tt->owns_data = 1;
            tt->data_bytes = s->data_bytes;
        }
        map[bt] = t;
    }
    /* the branch's nodes, then one Identity per used output */
    for (i = 0; i < b->n_nodes; i++) {
        const aicf__node* s = &b->nodes[i];
        aicf__node* d = &nn[k++]; /* counted from here on: freed on failure */
        d->op = s->op;
        d->name = aicf__inline_name(g, prefix, s->name, i, 0);
        d->op_type = aicf__strdup(ctx, s->op_type);
        d->domain = aicf__strdup(ctx, s->domain);
        d->in = (int*)aicf__calloc(ctx, (size_t)s->n_in + 1, sizeof(int));
        d->out = (int*)aicf__calloc(ctx, (size_t)s->n_out + 1, sizeof(int));
        d->attrs = (aicf__attrv*)aicf__calloc(ctx, (size_t)s->n_attrs + 1, sizeof(aicf__attrv));
        if (!d->name || !d->op_type || !d->domain || !d->in || !d->out || !d->attrs) goto oom;
        d->n_in = s->n_in;
        d->n_out = s->n_out;
        for (j = 0; j < s->n_in; j++) d->in[j] = s->in[j] >= 0 ? map[s->in[j]] : -1;
        for (j = 0; j < s->n_out; j++) d->out[j] = s->out[j] >= 0 ? map[s->out[j]] : -1;
        for (j = 0; j < s->n_attrs; j++) {
            const aicf__attrv* sa = &s->attrs[j];
            d->n_attrs = j + 1;
            if (aicf__attr_clone(ctx, sa, &d->attrs[j], sa->tensor >= 0 ? map[sa->tensor] : -1) != AICF_SUCCESS)
                goto oom;
            if (d->attrs[j].g) {
                r = aicf__inline_rename_outer(d->attrs[j].g, b, map, g, between, 0, ni, ifname);
                if (r != AICF_SUCCESS) goto fail;
            }
        }
    }
    for (j = 0; j < n->n_out; j++) {
        aicf__node* d;
        char tag[32];
        if (n->out[j] < 0) continue;
        d = &nn[k++];
        snprintf(tag, sizeof tag, "output:%d", j);
        d->op = AICF__OP_Identity;
        d->name = aicf__inline_name(g, prefix, tag, j, 0);
        d->op_type = aicf__strdup(ctx, "Identity");
        d->domain = aicf__strdup(ctx, "");
        d->in = (int*)aicf__calloc(ctx, 2, sizeof(int));
        d->out = (int*)aicf__calloc(ctx, 2, sizeof(int));
        d->attrs = (aicf__attrv*)aicf__calloc(ctx, 1, sizeof(aicf__attrv));
        if (!d->name || !d->op_type || !d->domain || !d->in || !d->out || !d->attrs) goto oom;
        d->n_in = d->n_out = 1;
        d->in[0] = map[b->outputs[j]];
        d->out[0] = n->out[j];
    }
    /* splice the new nodes in after the If; later nodes move up by n_new */
    if (!aicf__grow(ctx, (void**)&g->nodes, &g->cap_nodes, g->n_nodes + n_new, sizeof(aicf__node))) goto oom;
    memmove(&g->nodes[ni + 1 + n_new], &g->nodes[ni + 1], (size_t)(g->n_nodes - ni - 1) * sizeof(aicf__node));
    memcpy(&g->nodes[ni + 1], nn, (size_t)n_new * sizeof(aicf__node));
    g->n_nodes += n_new;
    for (i = 0; i < g->n_tensors; i++)
        if (g->tensors[i].producer > ni) g->tensors[i].producer += n_new;
    for (i = ni + 1; i <= ni + n_new; i++)
        for (j = 0; j < g->nodes[i].n_out; j++)
            if (g->nodes[i].out[j] >= 0) g->tensors[g->nodes[i].out[j]].producer = i;
    g->nodes[ni].removed = 1;
    aicf__free(ctx, nn);
    aicf__free(ctx, map);
    aicf__free(ctx, prefix);
    return AICF_SUCCESS;
oom:
    r = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (If): out of memory inlining %s", ni, ifname, which);
fail:
    if (nn)
        for (i = 0; i < k; i++) aicf__node_free(ctx, &nn[i]);
    aicf__free(ctx, nn);
    aicf__free(ctx, map);
    aicf__free(ctx, prefix);
    return r;
}

static aicf_result aicf__plan_push_step(aicf_plan* p, int* cap, const aicf__step* s) {
    if (!aicf__grow(p->ctx, (void**)&p->steps, cap, p->n_steps + 1, sizeof(aicf__step)))
        return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    p->steps[p->n_steps++] = *s;
    return AICF_SUCCESS;
}

/* Whether tensor t is an API boundary tensor of the plan (input or output, either side of a cast). */
static int aicf__is_boundary(const aicf_plan* p, int t) {
    int i;
    for (i = 0; i < p->n_in; i++)
        if (p->in_tensor[i] == t || (p->in_boundary && p->in_boundary[i] == t)) return 1;
    for (i = 0; i < p->n_out; i++)
        if (p->out_tensor[i] == t || (p->out_boundary && p->out_boundary[i] == t)) return 1;
    return 0;
}

/* Storage root of a tensor (follows aliases). */
static int aicf__root(const aicf_plan* p, int t) {
    while (p->loc[t].alias_of >= 0) t = p->loc[t].alias_of;
    return t;
}

typedef struct aicf__interval {
    int t;          /* tensor, or n_tensors + s for the scratch of step s */
    int first, last;
    size_t bytes;
    size_t offset;  /* assigned */
    size_t breadth; /* the largest total alive at one step of [first, last] (greedy by breadth) */
} aicf__interval;

/* The placement orders tried (aicf__plan_memory keeps the smallest arena; ties: the lower number). */
enum {
    AICF__MEM_BY_SIZE = 0,
    AICF__MEM_BY_BREADTH = 1,
    AICF__MEM_BY_BIRTH = 2,
    AICF__MEM_BY_DURATION = 3,
    AICF__MEM_BY_AREA = 4,
    AICF__MEM_ORDERS = 5
};
#define AICF__MEM_SEARCH_WORK 4.0e7 /* interval pairs the local search may compare (about 40 ms) */
static const char* const aicf__mem_order_names[AICF__MEM_ORDERS + 1] = {
    "greedy by size", "greedy by breadth", "first fit in birth order", "longest-lived first", "largest size x lifetime first",
    "local search from the best order"};

static int aicf__interval_tie(const aicf__interval* x, const aicf__interval* y) {
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->t - y->t;
}
/* size descending (Pisarchyk & Lee's greedy by size) */
static int aicf__interval_cmp_size(const void* a, const void* b) {
    return aicf__interval_tie((const aicf__interval*)a, (const aicf__interval*)b);
}
/* the heaviest step the tensor is alive at first, then size (greedy by breadth, same paper) */
static int aicf__interval_cmp_breadth(const void* a, const void* b) {
    const aicf__interval* x = (const aicf__interval*)a;
    const aicf__interval* y = (const aicf__interval*)b;
    if (x->breadth != y->breadth) return x->breadth > y->breadth ? -1 : 1;
    return aicf__interval_tie(x, y);
}
/* in the order the tensors come alive, larger first among those born at one step */
static int aicf__interval_cmp_birth(const void* a, const void* b) {
    const aicf__interval* x = (const aicf__interval*)a;
    const aicf__interval* y = (const aicf__interval*)b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return aicf__interval_tie(x, y);
}

/* longest lifetime first (the buffers that constrain every step they span), then size */
static int aicf__interval_cmp_duration(const void* a, const void* b) {
    const aicf__interval* x = (const aicf__interval*)a;
    const aicf__interval* y = (const aicf__interval*)b;
    if (x->last - x->first != y->last - y->first) return x->last - x->first > y->last - y->first ? -1 : 1;
    return aicf__interval_tie(x, y);
}
/* bytes x steps alive, largest first */
static int aicf__interval_cmp_area(const void* a, const void* b) {
    const aicf__interval* x = (const aicf__interval*)a;
    const aicf__interval* y = (const aicf__interval*)b;
    double ax = (double)x->bytes * (double)(x->last - x->first + 1), ay = (double)y->bytes * (double)(y->last - y->first + 1);
    if (ax != ay) return ax > ay ? -1 : 1;
    return aicf__interval_tie(x, y);
}

/* Places iv[0..n) in that order, each where it overlaps (in time) no placed interval: at the
   lowest such offset (best_fit 0), or in the smallest gap between placed intervals that holds it,
   else at the top (best_fit 1). Returns the arena size. placed[] is scratch of n pointers. */
static size_t aicf__place(aicf__interval* iv, int n, aicf__interval** placed, int best_fit) {
    size_t arena = 0;
    int i, j;
    for (i = 0; i < n; i++) {
        /* collect placed intervals overlapping in time, sorted by offset (insertion) */
        int np = 0, k;
        size_t off = 0, best = (size_t)-1, best_gap = (size_t)-1;
        for (j = 0; j < i; j++) {
            aicf__interval* q = &iv[j];
            if (q->last < iv[i].first || q->first > iv[i].last) continue;
            k = np++;
            while (k > 0 && placed[k - 1]->offset > q->offset) {
                placed[k] = placed[k - 1];
                k--;
            }
            placed[k] = q;
        }
        for (k = 0; k < np; k++) {
            size_t qo = placed[k]->offset, qe = qo + placed[k]->bytes;
            if (qo >= off + iv[i].bytes) { /* fits in the gap [off, qo) */
                if (!best_fit) break;
                if (qo - off < best_gap) {
                    best_gap = qo - off;
                    best = off;
                }
            }
            if (qe > off) off = qe;
        }
        if (best_fit && best != (size_t)-1) off = best;
        iv[i].offset = off;
        if (off + iv[i].bytes > arena) arena = off + iv[i].bytes;
    }
    return arena;
}

/* Offset assignment over lifetimes; fills loc[].offset for roots and steps[].scratch_offset for
   the steps' scratch (an interval [s, s]). The greedy placements of Pisarchyk & Lee ("Efficient
   Memory Management for Deep Neural Net Inference", 2020) by size and by breadth, a first fit in
   birth order, longest-lived first and largest size x lifetime first, each at the lowest free
   offset and into the smallest gap that holds it (best fit), are tried until one reaches the
   lower bound; the smallest arena wins (ties: the earlier; deterministic: the same model and
   policy give the same offsets), and the plan records which it was. */
static aicf_result aicf__plan_memory(aicf_plan* p) {
    aicf_graph* g = p->g;
    int nt = g->n_tensors, i, j, k, s, nroots = 0, order, fit, best_order = 0;
    size_t niv = (size_t)nt + (size_t)p->n_steps + 1;
    int* first = (int*)aicf__malloc(p->ctx, (size_t)nt * sizeof(int));
    int* last = (int*)aicf__malloc(p->ctx, (size_t)nt * sizeof(int));
    aicf__interval* iv = (aicf__interval*)aicf__calloc(p->ctx, niv, sizeof(aicf__interval));
    aicf__interval* best = (aicf__interval*)aicf__calloc(p->ctx, niv, sizeof(aicf__interval));
    aicf__interval** placed = (aicf__interval**)aicf__calloc(p->ctx, niv, sizeof(aicf__interval*));
    size_t* live = (size_t*)aicf__calloc(p->ctx, (size_t)p->n_steps + 2, sizeof(size_t));
    size_t arena = (size_t)-1, lower = 0;
    if (!first || !last || !iv || !best || !placed || !live) {
        aicf__free(p->ctx, first);
        aicf__free(p->ctx, last);
        aicf__free(p->ctx, iv);
        aicf__free(p->ctx, best);
        aicf__free(p->ctx, placed);
        aicf__free(p->ctx, live);
        return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory planning memory");
    }
    for (i = 0; i < nt; i++) {
        first[i] = INT32_MAX;
        last[i] = -2;
    }
    /* lifetimes of storage roots: inputs live from before step 0, outputs to after the last */
    /* inputs stay intact for the whole replay: an exec may be run again without setting them */
    for (i = 0; i < p->n_in; i++) {
        int r = aicf__root(p, p->in_boundary[i]);
        first[r] = -1;
        last[r] = p->n_steps;
    }
    for (s = 0; s < p->n_steps; s++) {
        const aicf__step* st = &p->steps[s];
        for (j = 0; j < st->n_in; j++) {
            int t = st->in[j], r;
            if (t < 0 || p->loc[t].space != AICF__SPACE_ARENA) continue;
            r = aicf__root(p, t);
            if (first[r] > s) first[r] = s;
            if (last[r] < s) last[r] = s;
        }
        for (j = 0; j < st->n_out; j++) {
            int t = st->out[j], r;
            if (t < 0 || p->loc[t].space != AICF__SPACE_ARENA) continue;
            r = aicf__root(p, t);
            if (first[r] > s) first[r] = s;
            if (last[r] < s) last[r] = s;
        }
        for (j = 0; j < st->n_epi; j++) { /* epilogue operands are read by this step */
            int t = st->epi[j].operand, r;
            if (t < 0 || p->loc[t].space != AICF__SPACE_ARENA) continue;
            r = aicf__root(p, t);
            if (first[r] > s) first[r] = s;
            if (last[r] < s) last[r] = s;
        }
    }
    for (i = 0; i < p->n_out; i++) {
        int t = p->out_boundary[i], r;
        if (p->loc[t].space != AICF__SPACE_ARENA) continue;
        r = aicf__root(p, t);
        if (first[r] == INT32_MAX) first[r] = -1;
        last[r] = p->n_steps;
        /* CUDA: the output Cast at the API boundary may run inside the kernel of the step that
           produces its input (a persistent kernel, aicf__cuda_persist): the float32 output then
           lives from that step on, apart from what the step reads */
        if (p->target == AICF_BACKEND_CUDA && p->out_tensor[i] != t && p->loc[p->out_tensor[i]].space == AICF__SPACE_ARENA) {
            int src = aicf__root(p, p->out_tensor[i]);
            if (first[src] >= 0 && first[src] < first[r]) first[r] = first[src];
        }
    }
    for (i = 0; i < nt; i++) {
        if (p->loc[i].space != AICF__SPACE_ARENA || p->loc[i].alias_of >= 0 || last[i] < -1) continue;
        iv[nroots].t = i;
        iv[nroots].first = first[i];
        iv[nroots].last = last[i];
        iv[nroots].bytes = aicf__align_up(p->loc[i].bytes);
        nroots++;
    }
    for (s = 0; s < p->n_steps; s++) { /* backend scratch: alive during its step only */
        if (!p->steps[s].scratch_bytes) continue;
        iv[nroots].t = nt + s;
        iv[nroots].first = iv[nroots].last = s;
        iv[nroots].bytes = aicf__align_up(p->steps[s].scratch_bytes);
        nroots++;
    }
    /* live[s + 1]: the total alive at step s (s = -1 .. n_steps); the lower bound is its maximum */
    for (i = 0; i < nroots; i++)
        for (s = iv[i].first; s <= iv[i].last; s++) live[s + 1] += iv[i].bytes;
    for (s = -1; s <= p->n_steps; s++)
        if (live[s + 1] > lower) lower = live[s + 1];
    for (i = 0; i < nroots; i++) {
        iv[i].breadth = 0;
        for (s = iv[i].first; s <= iv[i].last; s++)
            if (live[s + 1] > iv[i].breadth) iv[i].breadth = live[s + 1];
    }
    for (order = 0; order < AICF__MEM_ORDERS; order++) {
        size_t a;
        static int (*const cmp[AICF__MEM_ORDERS])(const void*, const void*) = {
            aicf__interval_cmp_size, aicf__interval_cmp_breadth, aicf__interval_cmp_birth, aicf__interval_cmp_duration,
            aicf__interval_cmp_area};
        qsort(iv, (size_t)nroots, sizeof *iv, cmp[order]);
        for (fit = 0; fit < 2 && arena > lower; fit++) {
            a = aicf__place(iv, nroots, placed, fit);
            if ((order == 0 && fit == 0) || a < arena) {
                arena = a;
                best_order = 2 * order + fit;
                memcpy(best, iv, sizeof(aicf__interval) * (size_t)nroots);
            }
        }
        if (arena <= lower) break; /* optimal */
    }
    /* Still above the bound: a local search from the best placement. Each interval in turn is
       moved to the front of the order and everything placed again; a smaller arena is kept and
       the search restarts from it. Bounded by AICF__MEM_SEARCH_WORK interval
       pairs compared in total (tens of milliseconds), deterministic. */
    if (arena > lower && nroots > 1) {
        double work = 0.0, per = (double)nroots * (double)nroots;
        int fit_best = best_order % 2, improved = 1;
        while (improved && work + per <= AICF__MEM_SEARCH_WORK) {
            improved = 0;
            for (k = 0; k < nroots && work + per <= AICF__MEM_SEARCH_WORK; k++) {
                size_t a;
                aicf__interval moved;
                if (k == 0) continue;
                memcpy(iv, best, sizeof(aicf__interval) * (size_t)nroots);
                moved = iv[k];
                memmove(iv + 1, iv, sizeof(aicf__interval) * (size_t)k);
                iv[0] = moved;
                a = aicf__place(iv, nroots, placed, fit_best);
                work += per;
                if (a < arena) {
                    arena = a;
                    memcpy(best, iv, sizeof(aicf__interval) * (size_t)nroots);
                    best_order = 2 * AICF__MEM_ORDERS + fit_best; /* searched */
                    improved = 1;
                    break;
                }
            }
            if (arena <= lower) break;
        }
    }
    for (i = 0; i < nroots; i++) {
        if (best[i].t < nt) p->loc[best[i].t].offset = best[i].offset;
        else p->steps[best[i].t - nt].scratch_offset = best[i].offset;
    }
    p->mem_order = best_order;
    /* aliases take their root's offset, plus the view offsets along the way */
    for (i = 0; i < nt; i++)
        if (p->loc[i].space == AICF__SPACE_ARENA && p->loc[i].alias_of >= 0) {
            size_t add = 0;
            int t = i;
            while (p->loc[t].alias_of >= 0) {
                add += p->loc[t].alias_add;
                t = p->loc[t].alias_of;
            }
            p->loc[i].offset = p->loc[t].offset + add;
        }
    p->arena_bytes = arena;
    p->arena_lower_bound = lower;
    aicf__free(p->ctx, first);
    aicf__free(p->ctx, last);
    aicf__free(p->ctx, iv);
    aicf__free(p->ctx, best);
    aicf__free(p->ctx, placed);
    aicf__free(p->ctx, live);
    return AICF_SUCCESS;
}

static int aicf__is_float(aicf_dtype dt) { return dt == AICF_DTYPE_FLOAT32; }

/* Adds a boundary tensor (float32, same shape) for tensor t under a reduced-precision plan. */
static int aicf__boundary_tensor(aicf_plan* p, int t, const char* tag) {
    char nm[AICF_MAX_NAME + 16];
    int b;
    aicf__tensor* bt;
    snprintf(nm, sizeof nm, "\x01%s:%s", tag, p->g->tensors[t].name);
    b = aicf__graph_new_tensor(p->g, nm);
    if (b < 0) return -1;
    bt = &p->g->tensors[b];
    bt->dtype = p->g->tensors[t].dtype;
    bt->shape = p->g->tensors[t].shape;
    bt->shape_known = 1;
    return b;
}

void aicf_plan_destroy(aicf_plan* p) {
    int i;
    if (!p) return;
    aicf__cuda_lt_join(p); /* a plan that failed while a helper ran */
    if (p->target == AICF_BACKEND_CUDA) aicf__cuda_plan_free(p);
    aicf__free(p->ctx, p->lt_cache);
    for (i = 0; i < p->n_steps; i++) aicf__free(p->ctx, p->steps[i].backend);
    aicf__free(p->ctx, p->steps);
    aicf__free(p->ctx, p->loc);
    aicf__free(p->ctx, p->in_tensor);
    aicf__free(p->ctx, p->out_tensor);
    aicf__free(p->ctx, p->in_boundary);
    aicf__free(p->ctx, p->out_boundary);
    if (p->g) aicf_graph_destroy(p->g);
    aicf__free(p->ctx, p);
}

static const char* aicf__precision_name(aicf_precision pr) {
    switch (pr) {
    case AICF_PRECISION_TF32: return "tf32";
    case AICF_PRECISION_FP16: return "fp16";
    default: return "fp32";
    }
}

/* ---- fusion: elementwise epilogues ----
   aicf__fuse_chain extends step st (main node st->node, not yet absorbed) along its output 0:
   while that tensor is read by exactly one live node, is not a graph output, and that node is
   an epilogue op (aicf__op_epilogue_kind) whose output has the same shape, whose other input
   (binary ops) is produced before the main node, the consumer is absorbed: recorded in
   st->epi, marked in absorbed[], and st->out[0] becomes its output. Absorbed nodes keep their
   place in the graph (explain and the plan file name them) but run inside the main step. */
typedef struct aicf__fuse_info {
    int* uses;      /* per tensor: reads by live nodes (+1 for a graph output) */
    int* reader;    /* per tensor: the last live node reading it */
    int* producer;  /* per tensor: the live node writing it, -1 if none */
    int* absorbed;  /* per node: the main node that absorbed it, -1 */
} aicf__fuse_info;

static void aicf__fuse_info_free(aicf_context* ctx, aicf__fuse_info* fi) {
    aicf__free(ctx, fi->uses);
    aicf__free(ctx, fi->reader);
    aicf__free(ctx, fi->producer);
    aicf__free(ctx, fi->absorbed);
}

static aicf_result aicf__fuse_info_make(aicf_graph* g, aicf__fuse_info* fi) {
    int i, j, nt = g->n_tensors;
    memset(fi, 0, sizeof *fi);
    fi->uses = (int*)aicf__calloc(g->ctx, (size_t)nt + 1, sizeof(int));
    fi->reader = (int*)aicf__calloc(g->ctx, (size_t)nt + 1, sizeof(int));
    fi->producer = (int*)aicf__calloc(g->ctx, (size_t)nt + 1, sizeof(int));
    fi->absorbed = (int*)aicf__calloc(g->ctx, (size_t)g->n_nodes + 1, sizeof(int));
    if (!fi->uses || !fi->reader || !fi->producer || !fi->absorbed) {
        aicf__fuse_info_free(g->ctx, fi);
        return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory (fusion)");
    }
    for (i = 0; i < nt; i++) fi->producer[i] = fi->reader[i] = -1;
    for (i = 0; i < g->n_nodes; i++) {
        const aicf__node* n = &g->nodes[i];
        fi->absorbed[i] = -1;
        if (n->removed) continue;
        for (j = 0; j < n->n_in; j++) {
            int t = n->views && j < 3 && n->views->v[j].base >= 0 ? n->views->v[j].base : n->in[j];
            if (t >= 0) {
                fi->uses[t]++;
                fi->reader[t] = i;
            }
        }
        for (j = 0; j < n->n_out; j++) {
            int t = n->views && j == 0 && n->views->v[3].base >= 0 ? n->views->v[3].base : n->out[j];
            if (t >= 0) fi->producer[t] = i;
        }
    }
    for (i = 0; i < g->n_outputs; i++) fi->uses[g->outputs[i]] += 1 << 20; /* never absorbed */
    return AICF_SUCCESS;
}

static int aicf__same_shape(const aicf__shape* a, const aicf__shape* b) {
    return a->rank == b->rank && memcmp(a->d, b->d, sizeof(int64_t) * (size_t)a->rank) == 0;
}

static void aicf__fuse_chain(aicf_graph* g, aicf__fuse_info* fi, aicf__step* st) {
    const aicf__node* m = &g->nodes[st->node];
    int i, cur;
    if (aicf__op_is_alias(m->op) || m->n_out < 1 || st->out[0] < 0) return;
    for (i = 1; i < st->n_out; i++)
        if (st->out[i] >= 0) return; /* one result only (Split, TopK... keep their outputs) */
    cur = st->out[0];
    if (g->tensors[cur].dtype != AICF_DTYPE_FLOAT32 || aicf__shape_numel(&g->tensors[cur].shape) <= 0) return;
    while (st->n_epi < AICF__EPI_MAX) {
        int ci = fi->reader[cur], kind, operand = -1, left = 0;
        const aicf__node* c;
        float alpha, beta;
        aicf__epi* e;
        if (fi->uses[cur] != 1 || ci < 0 || ci <= st->node) return;
        c = &g->nodes[ci];
        kind = aicf__op_epilogue_kind(g, ci, &alpha, &beta);
        if (kind == 0 || c->out[0] < 0 || !aicf__same_shape(&g->tensors[c->out[0]].shape, &g->tensors[cur].shape)) return;
        if (kind == 1) {
            if (c->in[0] != cur) return;
        } else {
            if (c->in[0] == cur && c->in[1] != cur) {
                operand = c->in[1];
            } else if (c->in[1] == cur && c->in[0] != cur && c->op != AICF__OP_PRelu) {
                operand = c->in[0];
                left = 1;
            } else {
                return;
            }
            /* the operand must exist when the main node runs */
            if (fi->producer[operand] >= st->node) return;
            if (!g->tensors[operand].shape_known || g->tensors[operand].shape.rank > g->tensors[cur].shape.rank) return;
        }
        e = &st->epi[st->n_epi++];
        e->node = ci;
        e->op = c->op;
        e->operand = operand;
        e->operand_left = left;
        e->alpha = alpha;
        e->beta = beta;
        fi->absorbed[ci] = st->node;
        cur = c->out[0];
        st->out[0] = cur;
    }
}

/* Transposes absorbed into the consumer's addressing: a Transpose that swaps the last two axes
   of a tensor of rank >= 2 (perm = [0, .., r-3, r-1, r-2]) whose output is read only by one
   MatMul, as its input 1, and is not a graph output, is removed; the MatMul reads the
   Transpose's input with its last two axes swapped (aicf__node.trans_b: the CPU reference reads
   B with swapped strides, the same sums in the same order; CUDA passes transB to the GEMM).
   Attention's K^T is the case (QK^T); its launch and the copy of K go. Off with no_fusion. */
static void aicf__absorb_transposes(aicf_plan* p) {
    aicf_graph* g = p->g;
    int i, j, k;
    for (i = 0; i < g->n_nodes; i++) {
        aicf__node* mm = &g->nodes[i];
        aicf__node* tr = NULL;
        const aicf__attrv* perm;
        int t, x, ti = -1, readers = 0, r;
        if (mm->removed || mm->op != AICF__OP_MatMul || mm->n_in < 2 || mm->trans_b || (t = mm->in[1]) < 0 || t == mm->in[0]) continue;
        for (j = 0; j < i && ti < 0; j++)
            if (!g->nodes[j].removed && g->nodes[j].op == AICF__OP_Transpose && g->nodes[j].n_out >= 1 && g->nodes[j].out[0] == t) ti = j;
        if (ti < 0) continue;
        tr = &g->nodes[ti];
        if (tr->n_in < 1 || (x = tr->in[0]) < 0 || !g->tensors[x].shape_known || (r = g->tensors[x].shape.rank) < 2) continue;
        perm = aicf__attr(tr, "perm");
        if (!perm && r != 2) continue; /* no perm: the axes reversed, a swap only at rank 2 */
        if (perm) {
            if (perm->type != AICF_ATTR_INTS || perm->count != r) continue;
            for (k = 0; k < r - 2 && perm->ints[k] == k; k++) {
            }
            if (k != r - 2 || perm->ints[r - 2] != r - 1 || perm->ints[r - 1] != r - 2) continue;
        }
        for (j = 0; j < g->n_outputs; j++)
            if (g->outputs[j] == t) readers = 99;
        for (j = 0; j < g->n_nodes && readers < 2; j++) {
            const aicf__node* n = &g->nodes[j];
            if (n->removed) continue;
            for (k = 0; k < n->n_in; k++) readers += n->in[k] == t;
        }
        if (readers != 1) continue;
        mm->in[1] = x;
        mm->trans_b = ti + 1;
        tr->removed = 1;
    }
}

/* Attention fused: the chain
     S = MatMul(Q, K^T)   K^T an absorbed last-two-axes Transpose (trans_b), Q [B, H, Sq, D] or [B, Sq, D]
     S = S * c | c * S | S / c        optional, c a float32 constant of one element
     S = S + M | M + S                optional, M float32 of S's shape or broadcasting to it, its last
                                      axis Skv (rank <= 2 when Q is 3-D)
     P = Softmax(S, axis = last)
     Y = MatMul(P, V)     V [B, H, Skv, Dv] (or [B, Skv, Dv])
   becomes one ONNX Attention node (opset 23 semantics: 4-D inputs, or 3-D with one head) in
   place of the last MatMul, scale = c (1/c for Div, 1 without), attn_mask = M. Each
   intermediate is read once and is not a graph output; batch and head axes match exactly; D
   and Dv <= 256 (the device kernel's limit, the same rule on every backend). A policy pin of
   one of the chain's nodes is then an error (aicf__apply_choices: no_fusion keeps them). The scores are then never stored (the CUDA kernel keeps them
   on chip, templates/attention.cu.j2; the CPU reference computes per query row). Differences
   against the chain: the scale is applied as sqrt(c) to Q and K on the CPU reference (c on
   CUDA) and Div as a multiplication by 1/c (rounding, ~1 ulp of the scores), a row whose
   scores are all -inf gives 0 where Softmax gives NaN (ONNX Attention). The replaced nodes are
   recorded in aicf__node.fused (explain, plan files, DOT). Off with no_fusion. */
/* whether tensor t can be the scores entering the mask Add: S's shape, made by a MatMul, Mul or Div */
static int aicf__attn_scores_in(const aicf_graph* g, const int* prod, int t, const aicf__shape* ss) {
    aicf__op op;
    if (prod[t] < 0 || !aicf__same_shape(&g->tensors[t].shape, ss)) return 0;
    op = g->nodes[prod[t]].op;
    return op == AICF__OP_MatMul || op == AICF__OP_Mul || op == AICF__OP_Div;
}

static aicf_result aicf__fuse_attention(aicf_plan* p) {
    aicf_graph* g = p->g;
    int i, k, *prod, *uses;
    aicf__fuse_info fi;
    aicf_result r = aicf__fuse_info_make(g, &fi);
    if (r != AICF_SUCCESS) return r;
    prod = fi.producer;
    uses = fi.uses;
    for (i = 0; i < g->n_nodes && r == AICF_SUCCESS; i++) {
        aicf__node* pv = &g->nodes[i];
        aicf__node *sm, *qk = NULL, *scn = NULL, *mkn = NULL, *x;
        const aicf__shape *qs, *ks, *vs, *ss;
        int s_t, t, rank, mask = -1, chain[6], n_chain = 0, ok = 1, *nin;
        float scale = 1.0f;
        int64_t axis;
        aicf__attrv* at;
        if (pv->removed || pv->op != AICF__OP_MatMul || pv->n_in != 2 || pv->n_out != 1 || pv->trans_b || pv->n_attrs || pv->in[0] < 0 ||
            pv->in[1] < 0 || pv->out[0] < 0)
            continue;
        if (uses[pv->in[0]] != 1 || prod[pv->in[0]] < 0) continue;
        sm = &g->nodes[prod[pv->in[0]]];
        if (sm->op != AICF__OP_Softmax || sm->n_in != 1 || sm->in[0] < 0) continue;
        s_t = sm->in[0];
        ss = &g->tensors[s_t].shape;
        rank = ss->rank;
        if (rank != 3 && rank != 4) continue;
        axis = aicf__attr_i(sm, "axis", g->opset > 0 && g->opset < 13 ? 1 : -1);
        if (axis < 0) axis += rank;
        if (axis != rank - 1) continue;
        /* walk back: [Add mask] <- [scale] <- MatMul */
        t = s_t;
        while (ok && prod[t] >= 0 && uses[t] == 1) {
            x = &g->nodes[prod[t]];
            if (x->op == AICF__OP_MatMul) {
                qk = x;
                break;
            }
            if (x->n_in != 2 || x->n_out != 1 || x->in[0] < 0 || x->in[1] < 0 || x->in[0] == x->in[1]) {
                ok = 0;
            } else if (x->op == AICF__OP_Add && !mkn && !scn) {
                /* the scores: the input of the scores' shape made by the MatMul or the scale */
                int c0 = aicf__attn_scores_in(g, prod, x->in[0], ss), c1 = aicf__attn_scores_in(g, prod, x->in[1], ss);
                if (!c0 && !c1) {
                    ok = 0;
                } else {
                    mkn = x;
                    mask = c0 ? x->in[1] : x->in[0];
                    t = c0 ? x->in[0] : x->in[1];
                }
            } else if ((x->op == AICF__OP_Mul || x->op == AICF__OP_Div) && !scn) {
                int ci = x->op == AICF__OP_Div ? 1 : (aicf__is_const(g, x->in[1]) ? 1 : 0);
                const aicf__tensor* ct = &g->tensors[x->in[ci]];
                float cv;
                if (!aicf__is_const(g, x->in[ci]) || ct->dtype != AICF_DTYPE_FLOAT32 || aicf__shape_numel(&ct->shape) != 1 || !ct->data ||
                    ct->data_bytes < 4) {
                    ok = 0;
                } else {
                    memcpy(&cv, ct->data, 4);
                    if (!(cv > 0.0f) || !(cv < 3.0e38f)) ok = 0;
                    scale = x->op == AICF__OP_Div ? (float)(1.0 / (double)cv) : cv;
                    scn = x;
                    t = x->in[1 - ci];
                }
            } else {
                ok = 0;
            }
        }
        if (!ok || !qk || !qk->trans_b || qk->n_in != 2 || qk->n_attrs || qk->in[0] < 0 || qk->in[1] < 0) continue;
        qs = &g->tensors[qk->in[0]].shape;
        ks = &g->tensors[qk->in[1]].shape;
        vs = &g->tensors[pv->in[1]].shape;
        if (qs->rank != rank || ks->rank != rank || vs->rank != rank) continue;
        for (k = 0; k < rank - 2 && ok; k++) ok = qs->d[k] == ks->d[k] && qs->d[k] == vs->d[k] && qs->d[k] == ss->d[k];
        if (!ok || ks->d[rank - 1] != qs->d[rank - 1] || vs->d[rank - 2] != ks->d[rank - 2] || qs->d[rank - 1] > 256 || vs->d[rank - 1] > 256)
            continue;
        if (g->tensors[qk->in[0]].dtype != AICF_DTYPE_FLOAT32 || g->tensors[qk->in[1]].dtype != AICF_DTYPE_FLOAT32 ||
            g->tensors[pv->in[1]].dtype != AICF_DTYPE_FLOAT32)
            continue;
        if (mask >= 0) {
            const aicf__tensor* mt = &g->tensors[mask];
            int mr = mt->shape.rank;
            if (mt->dtype != AICF_DTYPE_FLOAT32 || !mt->shape_known || mr < 1 || mr > (rank == 3 ? 2 : 4) ||
                mt->shape.d[mr - 1] != ss->d[rank - 1] || !aicf__same_shape(&g->tensors[mkn->out[0]].shape, ss))
                continue;
            for (k = 0; k < mr - 1 && ok; k++) ok = mt->shape.d[k] == 1 || mt->shape.d[k] == ss->d[rank - mr + k];
            if (!ok) continue;
        }
        /* the rewrite */
        if (qk->trans_b > 0) chain[n_chain++] = qk->trans_b - 1;
        chain[n_chain++] = (int)(qk - g->nodes);
        if (scn) chain[n_chain++] = (int)(scn - g->nodes);
        if (mkn) chain[n_chain++] = (int)(mkn - g->nodes);
        chain[n_chain++] = (int)(sm - g->nodes);
        nin = (int*)aicf__malloc(p->ctx, 4 * sizeof(int));
        at = (aicf__attrv*)aicf__calloc(p->ctx, 3, sizeof(aicf__attrv));
        {
            /* 3-D inputs are one head: q_num_heads = kv_num_heads = 1 */
            char* ot = aicf__strdup(p->ctx, "Attention");
            char* n0 = aicf__strdup(p->ctx, "scale");
            char* n1 = rank == 3 ? aicf__strdup(p->ctx, "q_num_heads") : NULL;
            char* n2 = rank == 3 ? aicf__strdup(p->ctx, "kv_num_heads") : NULL;
            if (!nin || !at || !ot || !n0 || (rank == 3 && (!n1 || !n2))) {
                aicf__free(p->ctx, nin);
                aicf__free(p->ctx, at);
                aicf__free(p->ctx, ot);
                aicf__free(p->ctx, n0);
                aicf__free(p->ctx, n1);
                aicf__free(p->ctx, n2);
                r = aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory (attention fusion)");
                break;
            }
            at[0].name = n0, at[0].type = AICF_ATTR_FLOAT, at[0].f = scale, at[0].tensor = -1;
            at[1].name = n1, at[1].type = AICF_ATTR_INT, at[1].i = 1, at[1].tensor = -1;
            at[2].name = n2, at[2].type = AICF_ATTR_INT, at[2].i = 1, at[2].tensor = -1;
            nin[0] = qk->in[0];
            nin[1] = qk->in[1];
            nin[2] = pv->in[1];
            nin[3] = mask;
            aicf__free(p->ctx, pv->op_type);
            aicf__free(p->ctx, pv->in);
            aicf__free(p->ctx, pv->attrs);
            pv->op_type = ot;
            pv->op = AICF__OP_Attention;
            pv->in = nin;
            pv->n_in = mask >= 0 ? 4 : 3;
            pv->attrs = at;
            pv->n_attrs = rank == 3 ? 3 : 1;
        }
        for (k = 0; k < n_chain; k++) {
            g->nodes[chain[k]].removed = 1;
            pv->fused[k] = chain[k];
        }
        pv->n_fused = n_chain;
        /* the Attention's output shape is the MatMul's (checked by inference); the chains of
           later nodes share no node or intermediate tensor with this one, so prod[] and uses[]
           stay valid for them */
        r = aicf__op_infer(g, i);
    }
    aicf__fuse_info_free(p->ctx, &fi);
    return r;
}

/* GELU as ONNX exporters write it before opset 20 (torch.nn.functional.gelu):
       d = Div(x, sqrt 2) | Mul(x, 1/sqrt 2) | Mul(1/sqrt 2, x);  e = Erf(d);  a = Add(e, 1) | Add(1, e);
       then Mul by x and Mul by 0.5, in either order, each operand on either side
   becomes one ONNX Gelu node (approximate = "none": 0.5 x (1 + erf(x / sqrt 2)), Hendrycks &
   Gimpel, arXiv:1606.08415; opset 20 semantics) in place of the last Mul, the four others
   removed (recorded in aicf__node.fused). Each intermediate is read once and is not a graph
   output; the constants are float32 scalars within 1e-6 of sqrt 2, 1/sqrt 2, 1 and 0.5. The
   step fusion then takes the Gelu as one epilogue op, so the GEMM before it can run it on its
   accumulators (src/81_cuda_ops.c aicf__cuo_lower_gemm_tc) where x is read by nothing else.
   Differences against the five ops: the CPU reference computes x * (1/sqrt 2) where the graph
   divides by sqrt 2, and 0.5 x (1 + erf) in one order (~1 ulp). Off with no_fusion. */
static int aicf__gelu_const(const aicf_graph* g, int t, double want) {
    const aicf__tensor* tt;
    float v;
    if (!aicf__is_const(g, t)) return 0;
    tt = &g->tensors[t];
    if (tt->dtype != AICF_DTYPE_FLOAT32 || !tt->data || tt->data_bytes != sizeof(float) || aicf__shape_numel(&tt->shape) != 1) return 0;
    memcpy(&v, tt->data, sizeof v);
    return fabs((double)v - want) <= 1e-6 * fabs(want);
}

/* node i as a binary op with one input t_in (a tensor) and a constant scalar `want` on either
   side (or, side_fixed, input 0 = t_in): returns 1 */
static int aicf__gelu_bin(const aicf_graph* g, const aicf__node* n, aicf__op op, int t_in, double want, int side_fixed) {
    if (n->removed || n->op != op || n->n_in != 2 || n->n_out != 1 || n->out[0] < 0) return 0;
    if (n->in[0] == t_in && aicf__gelu_const(g, n->in[1], want)) return 1;
    return !side_fixed && n->in[1] == t_in && aicf__gelu_const(g, n->in[0], want);
}

static aicf_result aicf__fuse_gelu(aicf_plan* p) {
    aicf_graph* g = p->g;
    int i, k;
    aicf__fuse_info fi;
    aicf_result r = aicf__fuse_info_make(g, &fi);
    if (r != AICF_SUCCESS) return r;
    for (i = 0; i < g->n_nodes && r == AICF_SUCCESS; i++) {
        aicf__node* n0 = &g->nodes[i];
        aicf__node *n1, *n2, *n3, *n4;
        int x, t, chain[4], ok;
        if (n0->removed || n0->n_in != 2 || n0->n_out != 1 || n0->out[0] < 0 || n0->n_attrs) continue;
        x = n0->in[0] >= 0 && !aicf__is_const(g, n0->in[0]) ? n0->in[0] : n0->in[1];
        if (x < 0 || g->tensors[x].dtype != AICF_DTYPE_FLOAT32 || !g->tensors[x].shape_known) continue;
        if (!aicf__gelu_bin(g, n0, AICF__OP_Div, x, 1.4142135623730951, 1) && !aicf__gelu_bin(g, n0, AICF__OP_Mul, x, 0.7071067811865476, 0))
            continue;
        /* d -> Erf -> Add 1 */
        t = n0->out[0];
        if (fi.uses[t] != 1 || fi.reader[t] < 0) continue;
        n1 = &g->nodes[fi.reader[t]];
        if (n1->removed || n1->op != AICF__OP_Erf || n1->n_in != 1 || n1->n_out != 1 || n1->out[0] < 0) continue;
        t = n1->out[0];
        if (fi.uses[t] != 1 || fi.reader[t] < 0) continue;
        n2 = &g->nodes[fi.reader[t]];
        if (!aicf__gelu_bin(g, n2, AICF__OP_Add, t, 1.0, 0)) continue;
        /* then Mul by x and Mul by 0.5, either order */
        t = n2->out[0];
        if (fi.uses[t] != 1 || fi.reader[t] < 0) continue;
        n3 = &g->nodes[fi.reader[t]];
        if (n3->removed || n3->op != AICF__OP_Mul || n3->n_in != 2 || n3->n_out != 1 || n3->out[0] < 0) continue;
        ok = (n3->in[0] == t && n3->in[1] == x) || (n3->in[1] == t && n3->in[0] == x);
        if (!ok && !aicf__gelu_bin(g, n3, AICF__OP_Mul, t, 0.5, 0)) continue;
        t = n3->out[0];
        if (fi.uses[t] != 1 || fi.reader[t] < 0) continue;
        n4 = &g->nodes[fi.reader[t]];
        if (n4->removed || n4->op != AICF__OP_Mul || n4->n_in != 2 || n4->n_out != 1 || n4->out[0] < 0 || n4->n_attrs) continue;
        if (ok) { /* x first: the last is Mul 0.5 */
            if (!aicf__gelu_bin(g, n4, AICF__OP_Mul, t, 0.5, 0)) continue;
        } else if (!((n4->in[0] == t && n4->in[1] == x) || (n4->in[1] == t && n4->in[0] == x))) {
            continue;
        }
        if (!aicf__same_shape(&g->tensors[n4->out[0]].shape, &g->tensors[x].shape)) continue;
        /* the rewrite: n4 becomes Gelu(x), the others removed */
        {
            char* ot = aicf__strdup(p->ctx, "Gelu");
            int* nin = (int*)aicf__malloc(p->ctx, sizeof(int));
            if (!ot || !nin) {
                aicf__free(p->ctx, ot);
                aicf__free(p->ctx, nin);
                r = aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory (GELU fusion)");
                break;
            }
            nin[0] = x;
            aicf__free(p->ctx, n4->op_type);
            aicf__free(p->ctx, n4->in);
            n4->op_type = ot;
            n4->op = AICF__OP_Gelu;
            n4->in = nin;
            n4->n_in = 1;
        }
        chain[0] = i;
        chain[1] = (int)(n1 - g->nodes);
        chain[2] = (int)(n2 - g->nodes);
        chain[3] = (int)(n3 - g->nodes);
        for (k = 0; k < 4; k++) {
            g->nodes[chain[k]].removed = 1;
            n4->fused[k] = chain[k];
        }
        n4->n_fused = 4;
        /* x keeps its other readers; the removed nodes' intermediates are read by nothing now */
        r = aicf__op_infer(g, (int)(n4 - g->nodes));
    }
    aicf__fuse_info_free(p->ctx, &fi);
    return r;
}

/* ---- fusion: a LayerNormalization as the prologue of the MatMul that reads it ----
   A post-LN transformer's LayerNorms each feed a GEMM (11 of the encoder's 12). With
   LN(x)_k = (x_k - mean) rstd gamma_k + beta_k over a row of K,
       LN(x) W = rstd (x W') - rstd mean c1 + c2,
   W' = diag(gamma) W rounded to float16 once here, c1_n = sum_k W'_kn, c2_n = sum_k beta_k W_kn:
   the GEMM runs on the raw rows x and only its epilogue needs each row's mean and rstd, which a
   Hopper GEMM holding all of its rows' K in shared memory computes from its own slabs
   (src/81_cuda_ops.c aicf__cuo_lower_ln_fold). One launch instead of two: enc_b1 -4.8 to -5.0 us
   for its 11 folds (docs/benchmarks.md, session 37). The pass runs on the steps, after the
   epilogue chains:
   a MatMul step (no absorbed Transpose, not a view) whose input 0 is written by the step of a
   LayerNormalization (axis the last, stash_type 1, Scale and B plan constants of K values, no
   Mean / InvStdDev output, nothing fused into it), whose B is a float32 constant [K, N], with
   M = rows of X in [128, 256], K and N multiples of 8, K <= AICF__LN_FOLD_MAX_K, every other
   reader of the LayerNorm's output a later step, and none of X, the LayerNorm's output and the
   step's output an input of a Concat (which could make it a view), absorbs the LayerNorm
   (aicf__step.pro): its step goes, X becomes input 0, the output stays as out[1] where something
   else reads it (the residual; CPU plans always keep it). On CUDA it applies only where the fold kernel runs
   (aicf__cuda_ln_fold_ok: float16 storage, sm_90a), not with matmul_algo cublaslt nor a pin
   of the MatMul other than generated; the plan then holds W', c1 and c2 as constants of its own
   (c1, c2 kept float32). The CPU reference runs the LayerNorm, then the MatMul, exactly as the
   unfused plan does (the same sums in the same order: bitwise equal). Off with no_fusion. */
#define AICF__LN_FOLD_MAX_K 1024 /* 16 slabs of 64 resident with 64 x 32 tiles: 192 KiB of shared memory */
static aicf_result aicf__fuse_ln_prologue(aicf_plan* p) {
    aicf_graph* g = p->g;
    const int cuda = p->target == AICF_BACKEND_CUDA;
    int s, j, k;
    if (cuda && (p->policy.precision != AICF_PRECISION_FP16 || p->policy.matmul_algo == AICF_MATMUL_CUBLASLT)) return AICF_SUCCESS;
    for (s = 0; s < p->n_steps; s++) {
        aicf__step* st = &p->steps[s];
        aicf__node *mm, *ln;
        int t, w, x, l, lnode, scale, bias, other = 0, pinned = 0, wf = -1, c1 = -1, c2 = -1;
        int64_t K, N, M, axis;
        const aicf__shape *xs, *wsh;
        if (st->kind != AICF__STEP_NODE || st->pro) continue;
        mm = &g->nodes[st->node];
        if (mm->op != AICF__OP_MatMul || mm->n_in != 2 || mm->trans_b || mm->views || mm->n_fused || st->n_in != 2 || st->n_out != 1)
            continue;
        t = st->in[0];
        w = st->in[1];
        if (t < 0 || w < 0 || aicf__is_const(g, t) || !aicf__is_const(g, w)) continue;
        for (l = s - 1; l >= 0; l--)
            if (p->steps[l].kind == AICF__STEP_NODE && p->steps[l].n_out >= 1 && p->steps[l].out[0] == t) break;
        if (l < 0 || p->steps[l].n_epi || p->steps[l].pro) continue;
        lnode = p->steps[l].node;
        ln = &g->nodes[lnode];
        if (ln->op != AICF__OP_LayerNormalization || ln->n_in < 2 || ln->out[0] != t || ln->views || ln->n_fused) continue;
        for (j = 1; j < p->steps[l].n_out && p->steps[l].out[j] < 0; j++) continue;
        if (j < p->steps[l].n_out) continue; /* Mean or InvStdDev read */
        x = ln->in[0];
        scale = ln->in[1];
        bias = ln->n_in > 2 ? ln->in[2] : -1;
        if (x < 0 || g->tensors[x].dtype != AICF_DTYPE_FLOAT32 || g->tensors[t].dtype != AICF_DTYPE_FLOAT32) continue;
        xs = &g->tensors[x].shape;
        wsh = &g->tensors[w].shape;
        if (xs->rank < 2 || wsh->rank != 2 || g->tensors[w].dtype != AICF_DTYPE_FLOAT32 || !g->tensors[w].data) continue;
        axis = aicf__attr_i(ln, "axis", -1);
        if (axis < 0) axis += xs->rank;
        if (axis != xs->rank - 1 || aicf__attr_i(ln, "stash_type", 1) != 1) continue;
        K = xs->d[xs->rank - 1];
        N = wsh->d[1];
        if (K <= 0 || wsh->d[0] != K || !aicf__same_shape(&g->tensors[t].shape, xs)) continue;
        M = aicf__shape_numel(xs) / K;
        if (!aicf__is_const(g, scale) || g->tensors[scale].dtype != AICF_DTYPE_FLOAT32 || aicf__shape_numel(&g->tensors[scale].shape) != K)
            continue;
        if (bias >= 0 && (!aicf__is_const(g, bias) || g->tensors[bias].dtype != AICF_DTYPE_FLOAT32 ||
                          aicf__shape_numel(&g->tensors[bias].shape) != K))
            continue;
        if (M < 128 || M > 256 || K % 8 != 0 || N % 8 != 0 || N <= 0 || K > AICF__LN_FOLD_MAX_K) continue;
        if (cuda && !aicf__cuda_ln_fold_ok(p, M, N, K)) continue;
        for (k = 0; k < AICF_MAX_PINS; k++)
            if (p->policy.pins[k].node[0] && mm->name && strcmp(p->policy.pins[k].node, mm->name) == 0 &&
                p->policy.pins[k].kernel != AICF_CHOICE_GENERATED)
                pinned = 1;
        if (pinned) continue;
        /* every other reader of the LayerNorm's output is a later step */
        for (k = 0; k < p->n_steps && other >= 0; k++) {
            const aicf__step* o = &p->steps[k];
            int reads = 0;
            if (k == s || k == l) continue;
            for (j = 0; j < o->n_in; j++) reads |= o->in[j] == t;
            for (j = 0; j < o->n_epi; j++) reads |= o->epi[j].operand == t;
            if (reads) other = k > s ? 1 : -1;
        }
        if (other < 0) continue;
        /* nothing it reads or writes may become a view into a Concat's output (the memory plan's
           choice, later): the fold's kernel needs 16-byte aligned rows and has no other form */
        for (k = 0; k < g->n_nodes && other >= 0; k++)
            if (!g->nodes[k].removed && g->nodes[k].op == AICF__OP_Concat)
                for (j = 0; j < g->nodes[k].n_in; j++)
                    if (g->nodes[k].in[j] >= 0 && (g->nodes[k].in[j] == x || g->nodes[k].in[j] == t || g->nodes[k].in[j] == st->out[0]))
                        other = -1;
        if (other < 0) continue;
        for (k = 0; k < g->n_outputs; k++) other |= g->outputs[k] == t;
        if (cuda) { /* W' = float16(gamma (.) W), c1 = column sums of W', c2 = beta W */
            char nm[96];
            aicf__shape cs, wshape = g->tensors[w].shape; /* a copy: new tensors may move the array */
            const float *W, *ga, *be;
            float *wp, *p1, *p2;
            int64_t kk, n;
            cs.rank = 1;
            cs.d[0] = N;
            snprintf(nm, sizeof nm, "\x01" "lnfold%d.W", st->node);
            if ((wf = aicf__new_const_f32(g, nm, &wshape, (size_t)(K * N))) < 0) goto oom;
            snprintf(nm, sizeof nm, "\x01" "lnfold%d.c1", st->node);
            if ((c1 = aicf__new_const_f32(g, nm, &cs, (size_t)N)) < 0) goto oom;
            snprintf(nm, sizeof nm, "\x01" "lnfold%d.c2", st->node);
            if ((c2 = aicf__new_const_f32(g, nm, &cs, (size_t)N)) < 0) goto oom;
            g->tensors[c1].flags |= AICF__T_KEEP_F32;
            g->tensors[c2].flags |= AICF__T_KEEP_F32;
            W = (const float*)g->tensors[w].data;
            ga = (const float*)g->tensors[scale].data;
            be = bias >= 0 ? (const float*)g->tensors[bias].data : NULL;
            wp = (float*)g->tensors[wf].data;
            p1 = (float*)g->tensors[c1].data;
            p2 = (float*)g->tensors[c2].data;
            for (kk = 0; kk < K; kk++)
                for (n = 0; n < N; n++) wp[kk * N + n] = aicf__f16_to_f32(aicf__f32_to_f16(ga[kk] * W[kk * N + n]));
            for (n = 0; n < N; n++) {
                double a = 0.0, b = 0.0;
                for (kk = 0; kk < K; kk++) {
                    a += (double)wp[kk * N + n];
                    if (be) b += (double)be[kk] * (double)W[kk * N + n];
                }
                p1[n] = (float)a;
                p2[n] = (float)b;
            }
        }
        st = &p->steps[s];
        mm = &g->nodes[st->node];
        st->in[0] = x;
        if (cuda) st->in[1] = wf;
        st->pro_in = 2;
        st->in[2] = scale;
        st->in[3] = bias;
        st->n_in = 4;
        if (cuda) {
            st->in[4] = c1;
            st->in[5] = c2;
            st->n_in = 6;
        }
        st->out[1] = cuda && !other ? -1 : t;
        st->n_out = 2;
        st->pro = lnode + 1;
        mm->fused[0] = lnode;
        mm->n_fused = 1;
        memmove(&p->steps[l], &p->steps[l + 1], (size_t)(p->n_steps - l - 1) * sizeof *p->steps);
        p->n_steps--;
        s--;
    }
    return AICF_SUCCESS;
oom:
    return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory (LayerNorm fold)");
}

/* ---- fusion: the LayerNormalization after a MatMul, in the GEMM's epilogue ----
   A post-LN transformer normalises the sum of each projection and its residual:
   LN(x W_o + b + h). Where that sum has no other reader it need not be stored: one kernel can
   finish the GEMM's rows and normalise them, if one CTA cluster owns whole rows (N = CS x BN,
   the row statistics merged over the cluster: src/81_cuda_ops.c aicf__cuo_lower_ln_epi). The
   widths it is built for (aicf__ln_epi_split): N = 256 (2 x 128), 384 (2 x 192: the reference
   encoder), 768 (4 x 192). */
static int aicf__ln_epi_split(int64_t N, int* bn, int* cs) {
    if (N == 256) *bn = 128, *cs = 2;
    else if (N == 384) *bn = 192, *cs = 2;
    else if (N == 768) *bn = 192, *cs = 4;
    else return 0;
    return 1;
}
/* The pass runs on the steps after aicf__fuse_ln_prologue: a MatMul step (no prologue, no
   absorbed Transpose, not a view, B a constant [K, N]) whose chain is at most an Add of a bias
   row and an Add of a full operand, whose output t is float32, read by exactly one other step, a
   LayerNormalization (axis the last, stash_type 1, Scale and B plan constants of N values, no
   Mean / InvStdDev output, nothing fused into it), t neither a graph output nor an input of a
   Concat (the memory plan could make either a view the kernel cannot write), N a split width,
   K a multiple of 8 and the 64-row blocks' clusters filling at least half the SMs (132 on the
   CPU; on CUDA the device's, and only where the kernel runs: aicf__cuda_ln_epi_ok, not with
   matmul_algo cublaslt nor a pin of the MatMul other than generated): the LayerNorm joins the
   step (aicf__step.post), which now writes the LayerNorm's output; the LayerNorm's step goes.
   The CPU reference runs the MatMul and its chain into that output, then the LayerNorm in place,
   row by row: the same sums in the same order as the unfused plan (bitwise equal). Off with
   no_fusion. */
static aicf_result aicf__fuse_ln_epilogue(aicf_plan* p) {
    aicf_graph* g = p->g;
    const int cuda = p->target == AICF_BACKEND_CUDA;
    int s, j, k;
    if (cuda && (p->policy.precision != AICF_PRECISION_FP16 || p->policy.matmul_algo == AICF_MATMUL_CUBLASLT)) return AICF_SUCCESS;
    for (s = 0; s < p->n_steps; s++) {
        aicf__step* st = &p->steps[s];
        aicf__node *mm, *ln;
        int t, w, l = -1, lnode, scale, bias, readers = 0, bad = 0, bn, cs, nrow = 0, nfull = 0;
        int64_t K, N, M, axis;
        const aicf__shape *ts, *wsh;
        if (st->kind != AICF__STEP_NODE || st->pro || st->post) continue;
        mm = &g->nodes[st->node];
        if (mm->op != AICF__OP_MatMul || mm->n_in != 2 || mm->trans_b || mm->views || mm->n_fused || st->n_in != 2 || st->n_out != 1)
            continue;
        t = st->out[0];
        w = st->in[1];
        if (t < 0 || st->in[0] < 0 || w < 0 || !aicf__is_const(g, w) || g->tensors[t].dtype != AICF_DTYPE_FLOAT32) continue;
        wsh = &g->tensors[w].shape;
        ts = &g->tensors[t].shape;
        if (wsh->rank != 2 || g->tensors[w].dtype != AICF_DTYPE_FLOAT32 || ts->rank < 2) continue;
        K = wsh->d[0];
        N = wsh->d[1];
        if (ts->d[ts->rank - 1] != N || N <= 0) continue;
        M = aicf__shape_numel(ts) / N;
        for (j = 0; j < st->n_epi && !bad; j++) { /* the chain: an Add of a bias row [N], an Add of a full operand */
            const aicf__epi* ep = &st->epi[j];
            int64_t ne;
            if (ep->op != AICF__OP_Add || ep->operand < 0) {
                bad = 1;
                continue;
            }
            ne = aicf__shape_numel(&g->tensors[ep->operand].shape);
            if (ne == N && ne != M * N) bad = nrow++ > 0;
            else if (ne == M * N && aicf__same_shape(&g->tensors[ep->operand].shape, ts)) bad = nfull++ > 0;
            else bad = 1;
        }
        if (bad) continue;
        /* t's readers: exactly one step, a LayerNormalization */
        for (k = 0; k < p->n_steps && !bad; k++) {
            const aicf__step* o = &p->steps[k];
            int reads = 0;
            if (k == s) continue;
            for (j = 0; j < o->n_in; j++) reads |= o->in[j] == t;
            for (j = 0; j < o->n_epi; j++) reads |= o->epi[j].operand == t;
            if (reads) {
                readers++;
                l = k;
            }
        }
        if (readers != 1 || l < s) continue;
        if (p->steps[l].kind != AICF__STEP_NODE || p->steps[l].n_epi || p->steps[l].pro || p->steps[l].post) continue;
        lnode = p->steps[l].node;
        ln = &g->nodes[lnode];
        if (ln->op != AICF__OP_LayerNormalization || ln->n_in < 2 || ln->in[0] != t || ln->views || ln->n_fused) continue;
        if (p->steps[l].in[0] != t || p->steps[l].out[0] < 0) continue;
        for (j = 1; j < p->steps[l].n_out && p->steps[l].out[j] < 0; j++) continue;
        if (j < p->steps[l].n_out) continue; /* Mean or InvStdDev read */
        scale = ln->in[1];
        bias = ln->n_in > 2 ? ln->in[2] : -1;
        if (g->tensors[p->steps[l].out[0]].dtype != AICF_DTYPE_FLOAT32) continue;
        axis = aicf__attr_i(ln, "axis", -1);
        if (axis < 0) axis += ts->rank;
        if (axis != ts->rank - 1 || aicf__attr_i(ln, "stash_type", 1) != 1) continue;
        if (!aicf__is_const(g, scale) || g->tensors[scale].dtype != AICF_DTYPE_FLOAT32 || aicf__shape_numel(&g->tensors[scale].shape) != N)
            continue;
        if (bias >= 0 && (!aicf__is_const(g, bias) || g->tensors[bias].dtype != AICF_DTYPE_FLOAT32 ||
                          aicf__shape_numel(&g->tensors[bias].shape) != N))
            continue;
        if (!aicf__ln_epi_split(N, &bn, &cs) || K % 8 != 0 || K <= 0) continue;
        if (cuda ? !aicf__cuda_ln_epi_ok(p, M, N, K) : 2 * ((M + 63) / 64) * cs < 132) continue;
        for (k = 0; k < AICF_MAX_PINS; k++)
            if (p->policy.pins[k].node[0] && mm->name && strcmp(p->policy.pins[k].node, mm->name) == 0 &&
                p->policy.pins[k].kernel != AICF_CHOICE_GENERATED)
                bad = 1;
        for (k = 0; k < g->n_outputs; k++) bad |= g->outputs[k] == t;
        for (k = 0; k < g->n_nodes && !bad; k++)
            if (!g->nodes[k].removed && g->nodes[k].op == AICF__OP_Concat)
                for (j = 0; j < g->nodes[k].n_in; j++)
                    if (g->nodes[k].in[j] >= 0 && (g->nodes[k].in[j] == t || g->nodes[k].in[j] == p->steps[l].out[0])) bad = 1;
        if (bad) continue;
        st->post_in = st->n_in;
        st->in[st->n_in] = scale;
        st->in[st->n_in + 1] = bias;
        st->n_in += 2;
        st->out[0] = p->steps[l].out[0];
        st->post = lnode + 1;
        mm->fused[0] = lnode;
        mm->n_fused = 1;
        memmove(&p->steps[l], &p->steps[l + 1], (size_t)(p->n_steps - l - 1) * sizeof *p->steps);
        p->n_steps--;
    }
    return AICF_SUCCESS;
}

/* Layout nodes absorbed into a fused Attention's addressing (its kernels take strides):
   - inputs: Q, K and V reached from one tensor X through Transpose, Split, Squeeze, Unsqueeze,
     Reshape, Flatten and Identity (the encoder's head split: [B, S, 3*H*D] -> Reshape
     [B, S, 3, H, D] -> Transpose [3, B, H, S, D] -> Split -> Squeeze) are read as strided views
     of X: the view is carried forward from X's contiguous layout (Transpose permutes the strides,
     Split moves the offset, Squeeze/Unsqueeze drop or add unit axes, Reshape/Flatten only while
     the view is still contiguous);
   - output 0: read only by a Transpose that keeps the last axis last (the heads merged back,
     [B, H, S, D] -> [B, S, H, D]) is written straight into that Transpose's output.
   Only when every node of those chains is then unused (each output read only by the chains or
   the Attention, none a graph output) and at least one Transpose goes: the chains' nodes are
   removed (recorded in aicf__node.fused), the step reads X and writes the Transpose's output
   (aicf__node.views). 4-D Attention only. Off with no_fusion. */
static int aicf__view_walk(const aicf_graph* g, const int* prod, int t, int* chain, int* n_chain, int cap) {
    /* the nodes from t back to the view's base, nearest first; returns the base tensor */
    while (t >= 0 && prod[t] >= 0) {
        const aicf__node* n = &g->nodes[prod[t]];
        if (n->op != AICF__OP_Transpose && n->op != AICF__OP_Split && !aicf__op_is_alias(n->op)) break;
        if (n->op == AICF__OP_Dropout || n->n_in < 1 || n->in[0] < 0 || *n_chain >= cap) break;
        chain[(*n_chain)++] = prod[t];
        t = n->in[0];
    }
    return t;
}

/* the view of the chain's last tensor over base's storage (chain[n-1] reads base, chain[0]
   makes the operand); 0 when a step cannot be expressed */
static int aicf__view_forward(const aicf_graph* g, int base, const int* chain, int n_chain, int operand, aicf__view* v) {
    int64_t d[AICF_MAX_RANK], st[AICF_MAX_RANK], off = 0, c;
    int r, k, i, cur = base;
    const aicf__shape* bs = &g->tensors[base].shape;
    if (!g->tensors[base].shape_known || bs->rank > AICF_MAX_RANK) return 0;
    r = bs->rank;
    for (k = r - 1, c = 1; k >= 0; k--) {
        d[k] = bs->d[k];
        st[k] = c;
        c *= bs->d[k];
    }
    for (i = n_chain - 1; i >= 0; i--) {
        const aicf__node* n = &g->nodes[chain[i]];
        int out = -1, j;
        const aicf__shape* os;
        for (j = 0; j < n->n_out; j++)
            if (n->out[j] >= 0 && (i == 0 ? n->out[j] == operand : g->nodes[chain[i - 1]].in[0] == n->out[j])) out = j;
        if (out < 0 || n->in[0] != cur) return 0;
        os = &g->tensors[n->out[out]].shape;
        if (!g->tensors[n->out[out]].shape_known || os->rank > AICF_MAX_RANK) return 0;
        if (n->op == AICF__OP_Transpose) {
            int64_t d2[AICF_MAX_RANK], s2[AICF_MAX_RANK];
            const aicf__attrv* perm = aicf__attr(n, "perm");
            if (os->rank != r) return 0;
            for (k = 0; k < r; k++) {
                int64_t pk = perm ? (perm->type == AICF_ATTR_INTS && perm->count == r ? perm->ints[k] : -1) : r - 1 - k;
                if (pk < 0 || pk >= r) return 0;
                d2[k] = d[pk];
                s2[k] = st[pk];
            }
            memcpy(d, d2, sizeof d2);
            memcpy(st, s2, sizeof s2);
        } else if (n->op == AICF__OP_Split) {
            int64_t ax = aicf__attr_i(n, "axis", 0), start = 0;
            if (ax < 0) ax += r;
            if (ax < 0 || ax >= r || os->rank != r) return 0;
            for (j = 0; j < out; j++) {
                if (n->out[j] < 0 || !g->tensors[n->out[j]].shape_known) return 0;
                start += g->tensors[n->out[j]].shape.d[ax];
            }
            off += start * st[ax];
            d[ax] = os->d[ax];
        } else { /* Reshape, Flatten, Squeeze, Unsqueeze, Identity: the same elements in the same order */
            int a = 0, b = 0, contiguous = 1;
            int64_t cc = 1;
            for (k = r - 1; k >= 0; k--) {
                if (d[k] != 1 && st[k] != cc) contiguous = 0;
                cc *= d[k];
            }
            if (contiguous) {
                r = os->rank;
                for (k = r - 1, c = 1; k >= 0; k--) {
                    d[k] = os->d[k];
                    st[k] = c;
                    c *= os->d[k];
                }
            } else {
                /* only unit axes added or dropped: the non-unit axes keep their strides */
                int64_t d2[AICF_MAX_RANK], s2[AICF_MAX_RANK];
                while (a < r || b < os->rank) {
                    if (a < r && b < os->rank && d[a] == os->d[b]) {
                        d2[b] = d[a];
                        s2[b] = st[a];
                        a++, b++;
                    } else if (a < r && d[a] == 1) {
                        a++;
                    } else if (b < os->rank && os->d[b] == 1) {
                        d2[b] = 1;
                        s2[b] = 0;
                        b++;
                    } else {
                        return 0;
                    }
                }
                r = os->rank;
                memcpy(d, d2, sizeof d2);
                memcpy(st, s2, sizeof s2);
            }
        }
        cur = n->out[out];
    }
    if (cur != operand || r < 1 || r > 4 || st[r - 1] != 1) return 0;
    v->base = base;
    v->off = off;
    for (k = 0; k < 4; k++) v->st[k] = k < r ? st[k] : 0;
    return 1;
}

static aicf_result aicf__attention_views(aicf_plan* p) {
    aicf_graph* g = p->g;
    int i, j, k, *prod, *uses;
    aicf__fuse_info fi;
    aicf_result r;
    for (i = 0; i < g->n_nodes; i++) {
        aicf__node* at = &g->nodes[i];
        aicf__views vw;
        int chain[48], n_chain = 0, tr = -1, transposes = 0, ok = 1, y;
        if (at->removed || at->op != AICF__OP_Attention || at->n_fused < 1 || at->views || at->n_in < 3 || at->n_out != 1 ||
            at->out[0] < 0 || g->tensors[at->in[0]].shape.rank != 4)
            continue;
        /* producers and readers as the graph stands now (earlier Attentions' views counted) */
        if ((r = aicf__fuse_info_make(g, &fi)) != AICF_SUCCESS) return r;
        prod = fi.producer;
        uses = fi.uses;
        memset(&vw, 0, sizeof vw);
        for (k = 0; k < 4; k++) vw.v[k].base = -1;
        for (k = 0; k < 3 && ok; k++) {
            int start = n_chain, base = aicf__view_walk(g, prod, at->in[k], chain, &n_chain, 16 * (k + 1));
            if (n_chain == start) continue; /* nothing to absorb */
            if (!aicf__view_forward(g, base, chain + start, n_chain - start, at->in[k], &vw.v[k])) ok = 0;
        }
        /* output 0 read by one Transpose keeping the last axis */
        y = at->out[0];
        if (uses[y] == 1) {
            for (j = i + 1; j < g->n_nodes && tr < 0; j++) {
                const aicf__node* n = &g->nodes[j];
                if (!n->removed && n->op == AICF__OP_Transpose && n->n_in >= 1 && n->in[0] == y && n->n_out == 1 && n->out[0] >= 0) tr = j;
            }
            if (tr >= 0) {
                const aicf__node* n = &g->nodes[tr];
                const aicf__attrv* perm = aicf__attr(n, "perm");
                const aicf__shape* ts = &g->tensors[n->out[0]].shape;
                int64_t cst[4], c = 1;
                if (!perm || perm->type != AICF_ATTR_INTS || perm->count != 4 || perm->ints[3] != 3 || ts->rank != 4) {
                    tr = -1;
                } else {
                    for (k = 3; k >= 0; k--) {
                        cst[k] = c;
                        c *= ts->d[k];
                    }
                    vw.v[3].base = n->out[0];
                    vw.v[3].off = 0;
                    for (k = 0; k < 4; k++) vw.v[3].st[perm->ints[k]] = cst[k];
                }
            }
        }
        for (j = 0; j < n_chain; j++) /* the same Split, Transpose, Reshape head several chains: once */
            for (k = 0; k < j; k++)
                if (chain[k] == chain[j]) chain[j] = -1;
        /* every chain node unused once the Attention reads the base: its outputs read only by
           the chains or the Attention */
        for (j = 0; j < n_chain && ok; j++) {
            const aicf__node* n;
            int o;
            if (chain[j] < 0) continue;
            n = &g->nodes[chain[j]];
            transposes += n->op == AICF__OP_Transpose;
            for (o = 0; o < n->n_out && ok; o++) {
                int t = n->out[o], readers = 0, m, q;
                if (t < 0) continue;
                for (m = 0; m < n_chain; m++)
                    for (q = 0; chain[m] >= 0 && q < g->nodes[chain[m]].n_in; q++) readers += g->nodes[chain[m]].in[q] == t;
                for (q = 0; q < 3; q++) readers += at->in[q] == t;
                if (uses[t] != readers) ok = 0;
            }
        }
        if (!ok) { /* the inputs stay as they are (all or none: they share their layout nodes) */
            n_chain = 0;
            transposes = 0;
            for (k = 0; k < 3; k++) vw.v[k].base = -1;
        }
        aicf__fuse_info_free(p->ctx, &fi);
        if (transposes + (tr >= 0) == 0) continue;
        at->views = (aicf__views*)aicf__malloc(p->ctx, sizeof(aicf__views));
        if (!at->views) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory (attention views)");
        *at->views = vw;
        /* record in graph order */
        for (j = 0; j < g->n_nodes; j++) {
            int in_chain = j == tr;
            for (k = 0; k < n_chain && !in_chain; k++) in_chain = chain[k] == j;
            if (!in_chain) continue;
            g->nodes[j].removed = 1;
            if (at->n_fused < AICF__NODE_FUSED_MAX) at->fused[at->n_fused++] = j;
        }
    }
    return AICF_SUCCESS;
}

aicf_result aicf_plan_create(aicf_graph* graph, const aicf_plan_desc* desc, aicf_plan** out) {
    return aicf__plan_create_ex(graph, desc, NULL, NULL, out);
}

const char* aicf__choice_name(int choice) {
    static const char* const names[6] = {"rule", "direct", "im2col_gemm", "implicit_gemm_tc", "cublaslt", "generated"};
    return choice >= 0 && choice < 6 ? names[choice] : "?";
}

static int aicf__choice_is_conv(int choice) { return choice >= AICF_CHOICE_DIRECT && choice <= AICF_CHOICE_IMPLICIT_GEMM_TC; }
/* the largest variant of a choice: cuBLASLt results 0..7, tensor-core K splits 1..6 (1..32 parts) */
static int aicf__choice_max_variant(int choice) {
    return choice == AICF_CHOICE_IM2COL_GEMM || choice == AICF_CHOICE_CUBLASLT ? 7 : choice == AICF_CHOICE_IMPLICIT_GEMM_TC ? 6 : 0;
}

/* The policy's pins, checked against the caller's graph (any backend): a known choice, a
   cuBLASLt result index only where cuBLASLt runs, each node pinned once and present. */
static aicf_result aicf__check_pins(aicf_context* ctx, const aicf_graph* graph, const aicf_policy* pol) {
    int i, j;
    for (i = 0; i < AICF_MAX_PINS; i++) {
        const aicf_pin* pin = &pol->pins[i];
        int found = 0;
        if (!memchr(pin->node, 0, sizeof pin->node))
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.pins[%d].node is not NUL-terminated within %d bytes",
                             i, AICF_PIN_NODE_CAP);
        if (!pin->node[0]) continue;
        if ((int)pin->kernel < AICF_CHOICE_DIRECT || (int)pin->kernel > AICF_CHOICE_GENERATED)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.pins[%d] (node '%s'): kernel %d is not a choice (1..5)", i,
                             pin->node, (int)pin->kernel);
        if (pin->variant < 0 || pin->variant > aicf__choice_max_variant((int)pin->kernel))
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                             "aicf_plan_create: policy.pins[%d] (node '%s'): variant %d is not one of %s's (0..%d)", i, pin->node,
                             pin->variant, aicf__choice_name((int)pin->kernel), aicf__choice_max_variant((int)pin->kernel));
        for (j = 0; j < i; j++)
            if (strcmp(pol->pins[j].node, pin->node) == 0)
                return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.pins[%d] and [%d] both pin node '%s'", j, i, pin->node);
        for (j = 0; j < graph->n_nodes && !found; j++)
            found = graph->nodes[j].name && strcmp(graph->nodes[j].name, pin->node) == 0;
        if (!found)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.pins[%d]: the graph has no node named '%s'", i, pin->node);
    }
    return AICF_SUCCESS;
}

/* CUDA, before the memory plan: each pin's step takes its choice; a loaded plan's autotuned
   steps take the file's choice and times. */
static aicf_result aicf__apply_choices(aicf_plan* p, const aicf__saved_choices* saved) {
    const aicf_graph* g = p->g;
    int i, s;
    for (i = 0; i < AICF_MAX_PINS; i++) {
        const aicf_pin* pin = &p->policy.pins[i];
        int step = -1, node = -1;
        aicf__op op;
        if (!pin->node[0]) continue;
        for (s = 0; s < p->n_steps && step < 0; s++)
            if (p->steps[s].kind == AICF__STEP_NODE && g->nodes[p->steps[s].node].name &&
                strcmp(g->nodes[p->steps[s].node].name, pin->node) == 0)
                step = s;
        for (s = 0; s < g->n_nodes && node < 0; s++)
            if (g->nodes[s].name && strcmp(g->nodes[s].name, pin->node) == 0) node = s;
        if (step < 0) {
            int host = -1, k;
            for (s = 0; s < p->n_steps && host < 0; s++)
                for (k = 0; k < p->steps[s].n_epi; k++)
                    if (p->steps[s].epi[k].node == node) host = s;
            if (host >= 0)
                return aicf__err(p->ctx, AICF_ERROR_UNSUPPORTED, "aicf_plan_create: policy pin of node '%s': the node is fused into step %d "
                                 "(node '%s'); pins apply to a step's main Conv, Gemm or MatMul node", pin->node, host,
                                 g->nodes[p->steps[host].node].name);
            for (s = 0; s < p->n_steps && host < 0; s++)
                if (p->steps[s].kind == AICF__STEP_NODE)
                    for (k = -1; k < p->steps[s].n_epi && host < 0; k++) { /* the main node, then the epilogue's */
                        const aicf__node* hn = &g->nodes[k < 0 ? p->steps[s].node : p->steps[s].epi[k].node];
                        int f;
                        for (f = 0; f < hn->n_fused; f++)
                            if (hn->fused[f] == node && hn->op == AICF__OP_Gelu)
                                return aicf__err(p->ctx, AICF_ERROR_UNSUPPORTED, "aicf_plan_create: policy pin of node '%s': a %s of the "
                                                 "exported GELU replaced by Gelu node '%s' (step %d); pins apply to a step's main Conv, "
                                                 "Gemm or MatMul node", pin->node, g->nodes[node].op_type, hn->name, s);
                            else if (hn->fused[f] == node) host = s;
                    }
            if (host >= 0 && p->steps[host].pro == node + 1)
                return aicf__err(p->ctx, AICF_ERROR_UNSUPPORTED, "aicf_plan_create: policy pin of node '%s': the LayerNormalization is "
                                 "folded into MatMul '%s' (step %d); pins apply to a step's main Conv, Gemm or MatMul node", pin->node,
                                 g->nodes[p->steps[host].node].name, host);
            if (host >= 0 && p->steps[host].post == node + 1)
                return aicf__err(p->ctx, AICF_ERROR_UNSUPPORTED, "aicf_plan_create: policy pin of node '%s': the LayerNormalization is "
                                 "fused after MatMul '%s' (step %d); pins apply to a step's main Conv, Gemm or MatMul node", pin->node,
                                 g->nodes[p->steps[host].node].name, host);
            if (host >= 0)
                return aicf__err(p->ctx, AICF_ERROR_UNSUPPORTED, "aicf_plan_create: policy pin of node '%s': the node is fused into the "
                                 "Attention of step %d (node '%s'), which runs one attention kernel; policy no_fusion = 1 keeps the "
                                 "chain's MatMuls as steps", pin->node, host, g->nodes[p->steps[host].node].name);
            return aicf__err(p->ctx, AICF_ERROR_UNSUPPORTED, "aicf_plan_create: policy pin of node '%s': the node has no step (folded into a "
                             "constant or removed at plan time)", pin->node);
        }
        op = g->nodes[p->steps[step].node].op;
        if (g->nodes[p->steps[step].node].n_fused > 0 && op == AICF__OP_Attention)
            return aicf__err(p->ctx, AICF_ERROR_UNSUPPORTED, "aicf_plan_create: policy pin of node '%s': the MatMul is fused with its "
                             "attention chain into the Attention of step %d, which runs one attention kernel; policy no_fusion = 1 "
                             "keeps the chain's MatMuls as steps", pin->node, step);
        if (op != AICF__OP_Conv && op != AICF__OP_Gemm && op != AICF__OP_MatMul)
            return aicf__err(p->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy pin of node '%s': a %s; pins apply to Conv, Gemm and "
                             "MatMul nodes", pin->node, g->nodes[p->steps[step].node].op_type);
        if ((op == AICF__OP_Conv) != aicf__choice_is_conv((int)pin->kernel))
            return aicf__err(p->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy pin of node '%s': %s is not a choice for a %s (%s)",
                             pin->node, aicf__choice_name((int)pin->kernel), g->nodes[p->steps[step].node].op_type,
                             op == AICF__OP_Conv ? "direct, im2col_gemm, implicit_gemm_tc" : "cublaslt, generated");
        p->steps[step].choice = (int)pin->kernel;
        p->steps[step].choice_lt = pin->variant;
        p->steps[step].choice_src = AICF__CHOICE_FROM_PIN;
    }
    for (i = 0; saved && i < saved->n; i++) {
        const aicf__saved_choice* c = &saved->v[i];
        aicf__step* st;
        if (c->src != AICF__CHOICE_FROM_TUNE) continue; /* pins come from the policy */
        if (c->step < 0 || c->step >= p->n_steps || p->steps[c->step].choice_src == AICF__CHOICE_FROM_PIN)
            return aicf__err(p->ctx, AICF_ERROR_PLAN_MISMATCH, "aicf_plan_create: the file's autotuned choice for step %d: the plan has %d steps%s",
                             c->step, p->n_steps, c->step >= 0 && c->step < p->n_steps ? " and that one is pinned" : "");
        {
            int k, best = 0;
            const aicf__step* ts = &p->steps[c->step];
            aicf__op op = ts->kind == AICF__STEP_NODE ? g->nodes[ts->node].op : AICF__OP_Cast;
            if ((op != AICF__OP_Conv && op != AICF__OP_Gemm && op != AICF__OP_MatMul) ||
                (c->choice != AICF_CHOICE_RULE && (op == AICF__OP_Conv) != aicf__choice_is_conv(c->choice)) ||
                (c->choice == AICF_CHOICE_RULE && c->lt != 0)) /* the rules' lowering has no variant */
                return aicf__err(p->ctx, AICF_ERROR_PLAN_MISMATCH, "aicf_plan_create: the file's autotuned choice %s for step %d: not a choice "
                                 "of that step's op", aicf__choice_name(c->choice), c->step);
            for (k = 1; k < c->n_tuned && k < AICF__TUNE_MAX; k++)
                if (c->tuned[k].ns < c->tuned[best].ns) best = k;
            if (c->n_tuned < 2 || c->tuned[best].choice != c->choice || c->tuned[best].lt != c->lt)
                return aicf__err(p->ctx, AICF_ERROR_PLAN_MISMATCH,
                                 "aicf_plan_create: the file's autotune record of step %d is not consistent: the choice %s/%d is not the "
                                 "fastest of the %d candidates its tuned line lists (pin a choice with the policy's pins instead)",
                                 c->step, aicf__choice_name(c->choice), c->lt, c->n_tuned);
        }
        st = &p->steps[c->step];
        st->choice = c->choice;
        st->choice_lt = c->lt;
        st->choice_src = AICF__CHOICE_FROM_TUNE;
        st->n_tuned = c->n_tuned;
        memcpy(st->tuned, c->tuned, sizeof st->tuned);
    }
    return AICF_SUCCESS;
}

/* CUDA: step scratch, memory plan, kernels (again after autotuning). */
static aicf_result aicf__plan_cuda_steps(aicf_plan* p) {
    aicf_result r;
    int i;
    for (i = 0; i < p->n_steps; i++)
        if ((r = aicf__cuda_step_scratch(p, i, &p->steps[i].scratch_bytes)) != AICF_SUCCESS) return r;
    if ((r = aicf__plan_memory(p)) != AICF_SUCCESS) return r;
    return aicf__cuda_plan(p);
}

/* Bytes of constants a plan copies and folds, estimated before shape inference: the graph's
   constant tensors, plus what each ConstantOfShape fills from a constant shape (4 bytes an
   element). Decides whether cuBLASLt's setup is worth a helper thread (aicf__cuda_lt_hint). */
static double aicf__fold_bytes(const aicf_graph* g) {
    double b = 0.0;
    int i, k;
    for (i = 0; i < g->n_tensors; i++)
        if (g->tensors[i].data) b += (double)g->tensors[i].data_bytes;
    for (i = 0; i < g->n_nodes; i++) {
        const aicf__node* n = &g->nodes[i];
        const aicf__tensor* s;
        double el = 1.0;
        if (n->op != AICF__OP_ConstantOfShape || n->n_in < 1 || n->in[0] < 0) continue;
        s = &g->tensors[n->in[0]];
        if (!s->data || s->dtype != AICF_DTYPE_INT64) continue;
        for (k = 0; k < (int)(s->data_bytes / 8); k++) {
            int64_t v;
            memcpy(&v, (const char*)s->data + 8 * (size_t)k, 8);
            el *= v > 0 ? (double)v : 0.0;
        }
        b += 4.0 * el;
    }
    return b;
}

aicf_result aicf__plan_create_ex(aicf_graph* graph, const aicf_plan_desc* desc, aicf__saved_algos* saved,
                                 aicf__saved_choices* choices, aicf_plan** out) {
    aicf_context* ctx;
    aicf_plan_desc d;
    aicf_plan* p;
    aicf_graph* g;
    aicf_result r;
    int i, j, stepcap = 0, folded;
    int fp16;
    aicf__fuse_info fuse;
    char fallback_reason[256];
    double t0 = aicf__now_us(), t1;
    if (!graph || !out) return AICF_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    ctx = graph->ctx;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.policy.precision == AICF_PRECISION_DEFAULT) d.policy.precision = AICF_PRECISION_FP32;
    if ((int)d.policy.precision < 0 || d.policy.precision > AICF_PRECISION_FP16)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.precision %d is not valid",
                         (int)d.policy.precision);
    if ((int)d.policy.conv_algo < 0 || d.policy.conv_algo > AICF_CONV_IMPLICIT_GEMM_TC)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.conv_algo %d is not valid",
                         (int)d.policy.conv_algo);
    if ((int)d.policy.matmul_algo < 0 || d.policy.matmul_algo > AICF_MATMUL_GENERATED)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.matmul_algo %d is not valid",
                         (int)d.policy.matmul_algo);
    if ((int)d.backend < 0 || d.backend > AICF_BACKEND_CUDA)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: backend %d is not valid", (int)d.backend);
    if ((r = aicf__check_pins(ctx, graph, &d.policy)) != AICF_SUCCESS) return r;
    fallback_reason[0] = 0;
    /* every input needs a known shape, within the size limit */
    for (i = 0; i < graph->n_inputs; i++) {
        const aicf__tensor* t = &graph->tensors[graph->inputs[i]];
        int ok = 1;
        for (j = 0; j < t->shape.rank; j++)
            if (t->shape.d[j] < 0)
                return aicf__err(ctx, AICF_ERROR_SHAPE,
                                 "aicf_plan_create: input '%s' dimension %d '%s' is not bound (aicf_graph_bind_dim)",
                                 t->name, j, t->dim_param[j] ? t->dim_param[j] : "?");
        aicf__shape_bytes(&t->shape, t->dtype, &ok);
        if (!ok)
            return aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_plan_create: input '%s': size exceeds AICF_MAX_TENSOR_BYTES",
                             t->name);
    }
    if (graph->n_outputs == 0)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "aicf_plan_create: the graph has no outputs");
    for (i = 0; i < graph->n_tensors; i++)
        if (graph->tensors[i].flags & AICF__T_OUTER)
            return aicf__err(ctx, AICF_ERROR_INVALID_MODEL,
                             "aicf_plan_create: tensor '%s' is an outer reference (a subgraph's), but this graph has no "
                             "enclosing graph", graph->tensors[i].name);
    /* backend choice */
    if (d.backend == AICF_BACKEND_DEFAULT || d.backend == AICF_BACKEND_CUDA) {
        r = (ctx->flags & AICF_CONTEXT_NO_CUDA)
                ? aicf__err(ctx, AICF_ERROR_NO_DEVICE, "CUDA disabled by AICF_CONTEXT_NO_CUDA")
                : aicf__cuda_init(ctx);
        if (r != AICF_SUCCESS) {
            if (d.backend == AICF_BACKEND_CUDA || !d.policy.allow_cpu_fallback) {
                char msg[AICF__ERR_CAP];
                snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
                return aicf__err(ctx, r, "aicf_plan_create: CUDA backend unavailable: %s%s", msg,
                                 d.backend == AICF_BACKEND_DEFAULT ? " (set policy.allow_cpu_fallback to use the CPU reference)" : "");
            }
            snprintf(fallback_reason, sizeof fallback_reason, "CPU fallback: %.200s", AICF__ERRBUF(ctx));
            d.backend = AICF_BACKEND_CPU;
        } else {
            d.backend = AICF_BACKEND_CUDA;
        }
    }
    p = (aicf_plan*)aicf__calloc(ctx, 1, sizeof *p);
    if (!p) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    p->ctx = ctx;
    p->target = d.backend;
    p->policy = d.policy;
    p->requested = desc ? desc->backend : AICF_BACKEND_DEFAULT; /* plan files (>>plan_io) */
    p->model_fingerprint = aicf__graph_fingerprint(graph);
    p->saved_algos = saved;
    p->saved_choices = choices;
    /* cuBLASLt's one-time setup, where a node will likely need it, on a helper thread from here
       (aicf__cuda_lt_hint): first with the shapes known before inference, then node by node */
    if (p->target == AICF_BACKEND_CUDA) {
        p->lt_fold_bytes = aicf__fold_bytes(graph);
        for (i = 0; i < graph->n_nodes && !p->lt_warm && !p->lt_warm_decided; i++) aicf__cuda_lt_hint(p, graph, i);
    }
    r = aicf__graph_clone(graph, &p->g);
    if (r != AICF_SUCCESS) goto fail;
    g = p->g;
    aicf__drop_unused_outputs(g);
    /* shape inference + constant folding; an If with a constant condition is replaced by its
       branch's nodes, which the loop reaches next */
    for (i = 0; i < g->n_nodes; i++) {
        aicf__node* n = &g->nodes[i];
        int all_const = 1;
        if (n->removed) continue;
        if (n->op == AICF__OP_If) {
            r = aicf__inline_if(g, i);
            if (r != AICF_SUCCESS) goto fail;
            aicf__drop_unused_outputs(g);
            continue;
        }
        if (n->op == AICF__OP_Loop || n->op == AICF__OP_Scan) {
            r = aicf__err(ctx, AICF_ERROR_UNSUPPORTED,
                          "node %d '%s' (%s): %s is not supported: a plan has no loops (only an If whose condition is "
                          "known at plan time is resolved, by inlining its branch)", i, n->name, n->op_type, n->op_type);
            goto fail;
        }
        for (j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            if (t < 0) continue;
            if (!g->tensors[t].shape_known) {
                r = aicf__err(ctx, AICF_ERROR_SHAPE, "node %d '%s' (%s): input %d '%s' has no known shape", i, n->name,
                              n->op_type, j, g->tensors[t].name);
                goto fail;
            }
            if (!(g->tensors[t].flags & AICF__T_CONST)) all_const = 0;
        }
        r = aicf__op_infer(g, i);
        if (r != AICF_SUCCESS) goto fail;
        if (p->target == AICF_BACKEND_CUDA && !all_const) aicf__cuda_lt_hint(p, g, i);
        if (all_const || n->op == AICF__OP_Shape || n->op == AICF__OP_Size) {
            r = aicf__fold_node(g, i);
            if (r != AICF_SUCCESS) goto fail;
        }
    }
    r = aicf__fold_batchnorm(g, &folded);
    if (r != AICF_SUCCESS) goto fail;
    aicf__dead_nodes(g);
    p->fold_ms = (aicf__now_us() - t0) * 1e-3;
    /* inputs / outputs */
    p->n_in = g->n_inputs;
    p->n_out = g->n_outputs;
    p->in_tensor = (int*)aicf__calloc(ctx, (size_t)p->n_in + 1, sizeof(int));
    p->in_boundary = (int*)aicf__calloc(ctx, (size_t)p->n_in + 1, sizeof(int));
    p->out_tensor = (int*)aicf__calloc(ctx, (size_t)p->n_out + 1, sizeof(int));
    p->out_boundary = (int*)aicf__calloc(ctx, (size_t)p->n_out + 1, sizeof(int));
    if (!p->in_tensor || !p->in_boundary || !p->out_tensor || !p->out_boundary) goto oom;
    fp16 = p->target == AICF_BACKEND_CUDA && p->policy.precision == AICF_PRECISION_FP16;
    {
        /* boundary tensors first (they are new tensors), then the loc array */
        for (i = 0; i < p->n_in; i++) {
            int t = g->inputs[i];
            p->in_tensor[i] = t;
            p->in_boundary[i] = t;
            if (fp16 && aicf__is_float(g->tensors[t].dtype)) {
                int b = aicf__boundary_tensor(p, t, "in");
                if (b < 0) goto oom;
                p->in_boundary[i] = b;
            }
        }
        for (i = 0; i < p->n_out; i++) {
            int t = g->outputs[i];
            p->out_tensor[i] = t;
            p->out_boundary[i] = t;
            if (fp16 && aicf__is_float(g->tensors[t].dtype) && !aicf__is_const(g, t)) {
                int b = aicf__boundary_tensor(p, t, "out");
                if (b < 0) goto oom;
                p->out_boundary[i] = b;
            }
        }
    }
    if (!p->policy.no_fusion) {
        aicf__absorb_transposes(p);
        if ((r = aicf__fuse_attention(p)) != AICF_SUCCESS) goto fail;
        if ((r = aicf__attention_views(p)) != AICF_SUCCESS) goto fail;
        if ((r = aicf__fuse_gelu(p)) != AICF_SUCCESS) goto fail;
    }
    /* steps */
    for (i = 0; i < p->n_in; i++)
        if (p->in_boundary[i] != p->in_tensor[i]) {
            aicf__step st;
            memset(&st, 0, sizeof st);
            st.kind = AICF__STEP_CAST;
            st.node = -1;
            st.n_in = st.n_out = 1;
            st.in[0] = p->in_boundary[i];
            st.out[0] = p->in_tensor[i];
            st.kernel_index = -1;
            if ((r = aicf__plan_push_step(p, &stepcap, &st)) != AICF_SUCCESS) goto fail;
        }
    if ((r = aicf__fuse_info_make(g, &fuse)) != AICF_SUCCESS) goto fail;
    for (i = 0; i < g->n_nodes; i++) {
        aicf__node* n = &g->nodes[i];
        aicf__step st;
        if (n->removed || fuse.absorbed[i] >= 0) continue;
        if (n->n_in > AICF__STEP_MAX_IO || n->n_out > AICF__STEP_MAX_IO) {
            aicf__fuse_info_free(ctx, &fuse);
            r = aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): %d inputs and %d outputs: a step has at most "
                          "AICF_MAX_STEP_IO (%d)", i, n->name, n->op_type, n->n_in, n->n_out, AICF__STEP_MAX_IO);
            goto fail;
        }
        memset(&st, 0, sizeof st);
        st.kind = AICF__STEP_NODE;
        st.node = i;
        st.n_in = n->n_in;
        st.n_out = n->n_out;
        for (j = 0; j < n->n_in; j++) st.in[j] = n->in[j];
        for (j = 0; j < n->n_out; j++) st.out[j] = n->out[j];
        if (n->views) /* strided views (aicf__attention_views): the step reads and writes their bases */
            for (j = 0; j < 4; j++)
                if (n->views->v[j].base >= 0) {
                    if (j < 3) st.in[j] = n->views->v[j].base;
                    else st.out[0] = n->views->v[j].base;
                }
        st.kernel_index = -1;
        if (!p->policy.no_fusion) aicf__fuse_chain(g, &fuse, &st);
        if ((r = aicf__plan_push_step(p, &stepcap, &st)) != AICF_SUCCESS) {
            aicf__fuse_info_free(ctx, &fuse);
            goto fail;
        }
    }
    aicf__fuse_info_free(ctx, &fuse);
    for (i = 0; i < p->n_out; i++)
        if (p->out_boundary[i] != p->out_tensor[i]) {
            aicf__step st;
            memset(&st, 0, sizeof st);
            st.kind = AICF__STEP_CAST;
            st.node = -1;
            st.n_in = st.n_out = 1;
            st.in[0] = p->out_tensor[i];
            st.out[0] = p->out_boundary[i];
            st.kernel_index = -1;
            if ((r = aicf__plan_push_step(p, &stepcap, &st)) != AICF_SUCCESS) goto fail;
        }
    if (!p->policy.no_fusion && (r = aicf__fuse_ln_prologue(p)) != AICF_SUCCESS) goto fail;
    if (!p->policy.no_fusion && (r = aicf__fuse_ln_epilogue(p)) != AICF_SUCCESS) goto fail;
    /* storage of every tensor */
    p->loc = (aicf__loc*)aicf__calloc(ctx, (size_t)g->n_tensors + 1, sizeof(aicf__loc));
    if (!p->loc) goto oom;
    for (i = 0; i < g->n_tensors; i++) {
        aicf__tensor* t = &g->tensors[i];
        aicf__loc* l = &p->loc[i];
        int ok;
        l->alias_of = -1;
        l->sdtype = t->dtype;
        if (fp16 && t->dtype == AICF_DTYPE_FLOAT32 && !(t->flags & AICF__T_KEEP_F32)) l->sdtype = AICF_DTYPE_FLOAT16;
        if (!t->shape_known) continue;
        l->bytes = aicf__shape_bytes(&t->shape, l->sdtype, &ok);
        if (!ok) {
            r = aicf__err(ctx, AICF_ERROR_LIMIT, "tensor '%s': size exceeds AICF_MAX_TENSOR_BYTES", t->name);
            goto fail;
        }
    }
    /* the API boundary keeps the graph's dtype */
    for (i = 0; i < p->n_in; i++) {
        int b = p->in_boundary[i], ok;
        p->loc[b].sdtype = g->tensors[b].dtype;
        p->loc[b].bytes = aicf__shape_bytes(&g->tensors[b].shape, g->tensors[b].dtype, &ok);
    }
    for (i = 0; i < p->n_out; i++) {
        int b = p->out_boundary[i], ok;
        p->loc[b].sdtype = g->tensors[b].dtype;
        p->loc[b].bytes = aicf__shape_bytes(&g->tensors[b].shape, g->tensors[b].dtype, &ok);
    }
    /* which tensors the steps touch decide their space */
    for (i = 0; i < p->n_steps; i++) {
        aicf__step* st = &p->steps[i];
        for (j = 0; j < st->n_in; j++) {
            int t = st->in[j];
            if (t < 0) continue;
            p->loc[t].space = aicf__is_const(g, t) ? AICF__SPACE_WEIGHTS : AICF__SPACE_ARENA;
        }
        for (j = 0; j < st->n_out; j++)
            if (st->out[j] >= 0) p->loc[st->out[j]].space = AICF__SPACE_ARENA;
        for (j = 0; j < st->n_epi; j++) {
            int t = st->epi[j].operand;
            if (t >= 0) p->loc[t].space = aicf__is_const(g, t) ? AICF__SPACE_WEIGHTS : AICF__SPACE_ARENA;
        }
    }
    for (i = 0; i < p->n_in; i++) p->loc[p->in_boundary[i]].space = AICF__SPACE_ARENA;
    for (i = 0; i < p->n_out; i++)
        if (!aicf__is_const(g, p->out_boundary[i])) p->loc[p->out_boundary[i]].space = AICF__SPACE_ARENA;
    /* aliasing ops share their input's storage */
    for (i = 0; i < p->n_steps; i++) {
        aicf__step* st = &p->steps[i];
        aicf__node* n;
        int src, dst;
        if (st->kind != AICF__STEP_NODE) continue;
        n = &g->nodes[st->node];
        if (!aicf__op_is_alias(n->op) || st->n_in < 1 || st->in[0] < 0 || st->out[0] < 0) continue;
        src = st->in[0];
        dst = st->out[0];
        if (p->loc[src].space != AICF__SPACE_ARENA || p->loc[src].bytes != p->loc[dst].bytes ||
            p->loc[src].sdtype != p->loc[dst].sdtype)
            continue;
        p->loc[dst].alias_of = src;
    }
    /* Split on the device along an axis with only 1s before it (the outermost non-unit one):
       each output is a contiguous piece of the input, so it becomes a view into the input's
       storage (no copy; the input lives as long as any view). The CPU reference keeps its copies. */
    if (p->target == AICF_BACKEND_CUDA)
        for (i = 0; i < p->n_steps; i++) {
            aicf__step* st = &p->steps[i];
            const aicf__node* n;
            const aicf__shape* xs;
            int x, ax, k, ok = 1;
            size_t pos = 0;
            /* (a fused epilogue would run in place on output 0, inside the input's storage) */
            if (st->kind != AICF__STEP_NODE || st->n_in < 1 || st->in[0] < 0 || st->n_epi > 0) continue;
            n = &g->nodes[st->node];
            if (n->op != AICF__OP_Split) continue;
            x = st->in[0];
            xs = &g->tensors[x].shape;
            if (p->loc[x].space != AICF__SPACE_ARENA || !g->tensors[x].shape_known || xs->rank < 1) continue;
            ax = (int)aicf__attr_i(n, "axis", 0);
            if (ax < 0) ax += xs->rank;
            if (ax < 0 || ax >= xs->rank) continue;
            for (k = 0; k < ax; k++)
                if (xs->d[k] != 1) ok = 0;
            for (k = 0; k < st->n_out && ok; k++) { /* outputs in order: consecutive pieces, like the input's storage */
                int y = st->out[k];
                if (y < 0 || p->loc[y].space != AICF__SPACE_ARENA || p->loc[y].sdtype != p->loc[x].sdtype ||
                    p->loc[y].alias_of >= 0)
                    ok = 0;
                else if ((pos += p->loc[y].bytes) > p->loc[x].bytes)
                    ok = 0;
            }
            if (!ok || pos != p->loc[x].bytes) continue;
            for (k = 0, pos = 0; k < st->n_out; k++) {
                p->loc[st->out[k]].alias_of = x;
                p->loc[st->out[k]].alias_add = pos;
                pos += p->loc[st->out[k]].bytes;
            }
        }
    /* Concat along an axis with only 1s before it: each input is a contiguous piece of the
       output, so its producer writes straight into the output's storage (the inputs become views
       of it, the Concat copies nothing). DenseNet's chains concat(concat(...), new) then share one
       buffer per block. An input qualifies once (a tensor is a view of one root), when it is a
       root written by a step (not a graph input or output, not a constant) and appears once; the
       Concat must have no fused epilogue (it would run in place over its inputs' storage). */
    for (i = 0; i < p->n_steps; i++) {
        aicf__step* st = &p->steps[i];
        const aicf__node* n;
        const aicf__shape* ys;
        int y, ax, k, j, ok = 1;
        size_t pos = 0;
        if (st->kind != AICF__STEP_NODE || st->n_out < 1 || st->out[0] < 0 || st->n_epi > 0 || st->n_in < 1) continue;
        n = &g->nodes[st->node];
        if (n->op != AICF__OP_Concat) continue;
        y = st->out[0];
        ys = &g->tensors[y].shape;
        if (p->loc[y].space != AICF__SPACE_ARENA || p->loc[y].alias_of >= 0 || !g->tensors[y].shape_known || ys->rank < 1 ||
            aicf__is_boundary(p, y))
            continue;
        ax = (int)aicf__attr_i(n, "axis", 1);
        if (ax < 0) ax += ys->rank;
        if (ax < 0 || ax >= ys->rank) continue;
        for (k = 0; k < ax; k++)
            if (ys->d[k] != 1) ok = 0;
        for (k = 0; k < st->n_in && ok; k++) {
            int t = st->in[k];
            if (t < 0 || t == y || p->loc[t].space != AICF__SPACE_ARENA || p->loc[t].alias_of >= 0 ||
                p->loc[t].sdtype != p->loc[y].sdtype || aicf__is_boundary(p, t) || aicf__is_const(g, t)) {
                ok = 0;
                break;
            }
            for (j = 0; j < k; j++)
                if (st->in[j] == t) ok = 0;
            if ((pos += p->loc[t].bytes) > p->loc[y].bytes) ok = 0;
        }
        if (!ok || pos != p->loc[y].bytes) continue;
        for (k = 0, pos = 0; k < st->n_in; k++) {
            p->loc[st->in[k]].alias_of = y;
            p->loc[st->in[k]].alias_add = pos;
            pos += p->loc[st->in[k]].bytes;
        }
    }
    /* weights */
    {
        size_t off = 0;
        for (i = 0; i < g->n_tensors; i++) {
            if (p->loc[i].space != AICF__SPACE_WEIGHTS) continue;
            p->loc[i].offset = off;
            if (!aicf__add_size(off, aicf__align_up(p->loc[i].bytes), &off)) {
                r = aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_plan_create: weights exceed the address space");
                goto fail;
            }
        }
        p->weights_bytes = off;
    }
    /* CUDA: pins and a loaded plan's choices; the backend's per-step scratch (a Conv's im2col
       buffer), placed by the memory plan; kernels. Autotuning times the candidates on the
       planned memory, then everything is planned again with the winners. */
    t1 = aicf__now_us();
    if (p->target == AICF_BACKEND_CUDA) {
        if ((r = aicf__apply_choices(p, choices)) != AICF_SUCCESS) goto fail;
        if ((r = aicf__plan_cuda_steps(p)) != AICF_SUCCESS) goto fail;
        if (p->policy.autotune && !choices) {
            int tunable = 0;
            if ((r = aicf__cuda_tune(p, &tunable)) != AICF_SUCCESS) goto fail;
            /* the candidates' lowerings replaced the steps' (even where none was faster, or only
               one applied: the LayerNorm fold's step): lowered again with the choices made */
            if (tunable) {
                aicf__cuda_plan_free(p);
                if ((r = aicf__plan_cuda_steps(p)) != AICF_SUCCESS) goto fail;
            }
        }
    } else {
        r = aicf__plan_memory(p);
        if (r != AICF_SUCCESS) goto fail;
        for (i = 0; i < p->n_steps; i++) {
            aicf__step* st = &p->steps[i];
            snprintf(st->kernel, sizeof st->kernel, "cpu:%s",
                     st->kind == AICF__STEP_CAST ? "Cast" : g->nodes[st->node].op_type);
            snprintf(st->reason, sizeof st->reason, "%.190s",
                     fallback_reason[0] ? fallback_reason : "CPU reference executor (float32)");
        }
    }
    p->saved_algos = NULL; /* lent by aicf_plan_load for planning only */
    p->saved_choices = NULL;
    aicf__cuda_lt_join(p); /* where no query came after it: a wrong guess */
    aicf__free(ctx, p->lt_cache); /* planning is over */
    p->lt_cache = NULL;
    p->lt_cache_n = p->lt_cache_cap = 0;
    p->select_ms = (aicf__now_us() - t1) * 1e-3;
    p->create_ms = (aicf__now_us() - t0) * 1e-3;
    *out = p;
    return AICF_SUCCESS;
oom:
    r = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
fail:
    aicf_plan_destroy(p);
    return r;
}

aicf_result aicf_plan_stats_get(const aicf_plan* p, aicf_plan_stats* out) {
    int i, live = 0;
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        if (st->kind == AICF__STEP_NODE && st->out[0] >= 0 && p->loc[st->out[0]].alias_of >= 0) continue;
        out->num_steps++;
    }
    for (i = 0; i < p->g->n_nodes; i++) live += !p->g->nodes[i].removed;
    out->num_nodes = live;
    out->arena_bytes = p->arena_bytes;
    out->arena_lower_bound = p->arena_lower_bound;
    out->weights_bytes = p->weights_bytes;
    out->backend = p->target;
    out->precision = p->policy.precision;
    out->create_ms = p->create_ms;
    out->create_fold_ms = p->fold_ms;
    out->create_select_ms = p->select_ms;
    out->lt_heuristic_queries = p->lt_queries;
    out->lt_heuristic_ms = p->lt_query_ms;
    out->lt_setup_ms = p->lt_warm_ms;
    out->lt_setup_wait_ms = p->lt_warm_wait_ms;
    return AICF_SUCCESS;
}

/* Appends printf-style text to a growing buffer (measures when it would overflow). */
typedef struct aicf__sbuf {
    char* buf;
    size_t cap, len;
} aicf__sbuf;

static void aicf__sbuf_printf(aicf__sbuf* b, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void aicf__sbuf_printf(aicf__sbuf* b, const char* fmt, ...) {
    va_list ap;
    int n;
    char* dst = b->len < b->cap ? b->buf + b->len : NULL;
    size_t room = b->len < b->cap ? b->cap - b->len : 0;
    va_start(ap, fmt);
    n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) b->len += (size_t)n;
}

/* " (replacing Div 'a', Erf 'b', Add 'c', Mul 'd')" for a Gelu node aicf__fuse_gelu made */
static void aicf__gelu_replaced(aicf__sbuf* b, const aicf_graph* g, int node) {
    const aicf__node* n = &g->nodes[node];
    int j;
    if (n->op != AICF__OP_Gelu || n->n_fused < 1) return;
    aicf__sbuf_printf(b, " (the exported GELU as one Gelu, replacing");
    for (j = 0; j < n->n_fused && j < AICF__NODE_FUSED_MAX; j++)
        aicf__sbuf_printf(b, "%s %s '%s'", j ? "," : "", g->nodes[n->fused[j]].op_type, g->nodes[n->fused[j]].name);
    aicf__sbuf_printf(b, ")");
}

static const char* aicf__tname(const aicf_graph* g, int t) {
    const char* n = g->tensors[t].name;
    return n[0] == '\x01' ? n + 1 : n;
}

aicf_result aicf_plan_format(const aicf_plan* p, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    aicf_plan_stats stats;
    int i, j;
    char sh[160];
    if (!p) return AICF_ERROR_INVALID_ARGUMENT;
    b.buf = buf;
    b.cap = buf ? cap : 0;
    b.len = 0;
    if (buf && cap) buf[0] = 0;
    aicf_plan_stats_get(p, &stats);
    aicf__sbuf_printf(&b, "plan: backend %s, precision %s, %d nodes, %d steps\n",
                      p->target == AICF_BACKEND_CUDA ? "cuda" : "cpu", aicf__precision_name(p->policy.precision),
                      stats.num_nodes, stats.num_steps);
    for (i = 0; i < p->n_in; i++)
        aicf__sbuf_printf(&b, "input  %d '%s' %s %s @arena+%zu (%zu B)\n", i, aicf__tname(p->g, p->in_tensor[i]),
                          aicf_dtype_name(p->g->tensors[p->in_tensor[i]].dtype),
                          aicf__shape_str(&p->g->tensors[p->in_tensor[i]].shape, sh, sizeof sh),
                          p->loc[p->in_boundary[i]].offset, p->loc[p->in_boundary[i]].bytes);
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        const char* op = st->kind == AICF__STEP_CAST ? "Cast(boundary)" : p->g->nodes[st->node].op_type;
        aicf__sbuf_printf(&b, "step %3d  %-18s %-28s", i, op, st->kernel);
        if (st->block[0])
            aicf__sbuf_printf(&b, " grid(%u,%u,%u) block(%u,%u,%u)", st->grid[0], st->grid[1], st->grid[2], st->block[0],
                              st->block[1], st->block[2]);
        if (st->kind == AICF__STEP_NODE) aicf__sbuf_printf(&b, " node '%s'", p->g->nodes[st->node].name);
        aicf__sbuf_printf(&b, "\n          in:");
        for (j = 0; j < st->n_in; j++) {
            int t = st->in[j];
            const aicf__loc* l;
            if (t < 0) {
                aicf__sbuf_printf(&b, " -");
                continue;
            }
            l = &p->loc[t];
            aicf__sbuf_printf(&b, " %s%s@%s+%zu(%zuB)", aicf__tname(p->g, t),
                              aicf__shape_str(&p->g->tensors[t].shape, sh, sizeof sh),
                              l->space == AICF__SPACE_WEIGHTS ? "weights" : "arena", l->offset, l->bytes);
        }
        aicf__sbuf_printf(&b, "\n          out:");
        for (j = 0; j < st->n_out; j++) {
            int t = st->out[j];
            if (t < 0) {
                aicf__sbuf_printf(&b, " -");
                continue;
            }
            aicf__sbuf_printf(&b, " %s%s@arena+%zu(%zuB)%s", aicf__tname(p->g, t),
                              aicf__shape_str(&p->g->tensors[t].shape, sh, sizeof sh), p->loc[t].offset, p->loc[t].bytes,
                              p->loc[t].alias_of >= 0 ? " (alias of input)" : "");
        }
        if (st->n_epi > 0) {
            aicf__sbuf_printf(&b, "\n          fused:");
            for (j = 0; j < st->n_epi; j++) {
                const aicf__epi* ep = &st->epi[j];
                aicf__sbuf_printf(&b, " %s '%s'", p->g->nodes[ep->node].op_type, p->g->nodes[ep->node].name);
                if (ep->operand >= 0)
                    aicf__sbuf_printf(&b, "(%s%s%s)", ep->operand_left ? "" : "v, ", aicf__tname(p->g, ep->operand),
                                      ep->operand_left ? ", v" : "");
                aicf__gelu_replaced(&b, p->g, ep->node);
            }
            if (st->epi_native) aicf__sbuf_printf(&b, " [first %d inside the main kernel]", st->epi_native);
        }
        if (st->kind == AICF__STEP_NODE && st->pro > 0)
            aicf__sbuf_printf(&b, "\n          prologue: LayerNormalization '%s' absorbed (run first on '%s'%s)", p->g->nodes[st->pro - 1].name,
                              aicf__tname(p->g, st->in[0]), st->n_out > 1 && st->out[1] >= 0 ? ", its output kept as out 1" : "");
        if (st->kind == AICF__STEP_NODE && st->post > 0)
            aicf__sbuf_printf(&b, "\n          LayerNormalization '%s' fused after the chain (its input '%s' never stored; writes '%s')",
                              p->g->nodes[st->post - 1].name, aicf__tname(p->g, p->g->nodes[st->post - 1].in[0]), aicf__tname(p->g, st->out[0]));
        if (st->kind == AICF__STEP_NODE && p->g->nodes[st->node].op == AICF__OP_Gelu && p->g->nodes[st->node].n_fused > 0) {
            aicf__sbuf_printf(&b, "\n          Gelu:");
            aicf__gelu_replaced(&b, p->g, st->node);
        }
        if (st->kind == AICF__STEP_NODE && p->g->nodes[st->node].n_fused > 0 && p->g->nodes[st->node].op == AICF__OP_Attention) {
            const aicf__node* an = &p->g->nodes[st->node];
            aicf__sbuf_printf(&b, "\n          attention fused, replacing:");
            for (j = 0; j < an->n_fused && j < AICF__NODE_FUSED_MAX; j++)
                aicf__sbuf_printf(&b, "%s %s '%s'", j ? "," : "", p->g->nodes[an->fused[j]].op_type, p->g->nodes[an->fused[j]].name);
            aicf__sbuf_printf(&b, ", MatMul '%s' (scale %.9g%s%s)", an->name, (double)aicf__attr_f(an, "scale", 0.0f),
                              an->n_in > 3 && an->in[3] >= 0 ? ", mask added" : "", an->views ? ", strided views" : "");
        }
        aicf__sbuf_printf(&b, "\n          why: %s\n", st->reason);
    }
    for (i = 0; i < p->n_out; i++) {
        int t = p->out_boundary[i];
        if (aicf__is_const(p->g, t))
            aicf__sbuf_printf(&b, "output %d '%s' %s (constant, folded at plan time)\n", i,
                              aicf__tname(p->g, p->out_tensor[i]), aicf__shape_str(&p->g->tensors[t].shape, sh, sizeof sh));
        else
            aicf__sbuf_printf(&b, "output %d '%s' %s @arena+%zu (%zu B)\n", i, aicf__tname(p->g, p->out_tensor[i]),
                              aicf__shape_str(&p->g->tensors[t].shape, sh, sizeof sh), p->loc[t].offset, p->loc[t].bytes);
    }
    aicf__sbuf_printf(&b, "arena: %zu bytes (lower bound %zu bytes, ratio %.3f); weights: %zu bytes\n", p->arena_bytes,
                      p->arena_lower_bound,
                      p->arena_lower_bound ? (double)p->arena_bytes / (double)p->arena_lower_bound : 1.0,
                      p->weights_bytes);
    if (needed) *needed = b.len + 1;
    if (buf && cap && b.len >= cap) buf[cap - 1] = 0;
    return AICF_SUCCESS;
}

int aicf_plan_num_inputs(const aicf_plan* p) { return p ? p->n_in : 0; }
int aicf_plan_num_outputs(const aicf_plan* p) { return p ? p->n_out : 0; }
int aicf_plan_num_steps(const aicf_plan* p) { return p ? p->n_steps : -1; }

aicf_result aicf_plan_step_info(const aicf_plan* p, int step, aicf_step_info* out) {
    const aicf__step* st;
    int k;
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (step < 0 || step >= p->n_steps)
        return aicf__err(p->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_step_info: step %d out of range (%d steps)", step, p->n_steps);
    st = &p->steps[step];
    if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < p->g->n_nodes) {
        out->op_type = p->g->nodes[st->node].op_type ? p->g->nodes[st->node].op_type : "";
        out->node_name = p->g->nodes[st->node].name ? p->g->nodes[st->node].name : "";
    } else {
        out->op_type = "Cast";
        out->node_name = "";
    }
    out->kernel = st->kernel;
    out->reason = st->reason;
    out->num_fused = st->n_epi;
    out->choice = (aicf_kernel_choice)st->choice;
    out->variant = st->choice_lt;
    out->pinned = st->choice_src == AICF__CHOICE_FROM_PIN;
    for (k = 0; k < st->n_tuned && k < AICF__TUNE_MAX; k++) {
        out->tuned_us[k] = (float)((double)st->tuned[k].ns / 1000.0);
        out->tuned_choice[k] = (aicf_kernel_choice)st->tuned[k].choice;
        out->tuned_variant[k] = st->tuned[k].lt;
    }
    out->num_tuned = k;
    for (k = 0; k < aicf__cuda_step_ops(p, step, NULL); k++) {
        aicf__cuda_op_view v;
        aicf__cuda_step_op(p, step, k, &v);
        out->pdl_launches += v.pdl;
    }
    return AICF_SUCCESS;
}
typedef char aicf__check_step_info_tuned[sizeof(((aicf_step_info*)0)->tuned_us) / sizeof(float) == AICF__TUNE_MAX ? 1 : -1];

aicf_result aicf_plan_input_info(const aicf_plan* p, int index, aicf_tensor_info* out) {
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= p->n_in)
        return aicf__err(p->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_input_info: index %d out of range (%d inputs)",
                         index, p->n_in);
    aicf__tensor_info(&p->g->tensors[p->in_tensor[index]], out);
    return AICF_SUCCESS;
}

aicf_result aicf_plan_output_info(const aicf_plan* p, int index, aicf_tensor_info* out) {
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= p->n_out)
        return aicf__err(p->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_output_info: index %d out of range (%d outputs)",
                         index, p->n_out);
    aicf__tensor_info(&p->g->tensors[p->out_tensor[index]], out);
    return AICF_SUCCESS;
}

int aicf_plan_find_input(const aicf_plan* p, const char* name) {
    int i;
    if (!p || !name) return -1;
    for (i = 0; i < p->n_in; i++)
        if (strcmp(p->g->tensors[p->in_tensor[i]].name, name) == 0) return i;
    return -1;
}

int aicf_plan_find_output(const aicf_plan* p, const char* name) {
    int i;
    if (!p || !name) return -1;
    for (i = 0; i < p->n_out; i++)
        if (strcmp(p->g->tensors[p->out_tensor[i]].name, name) == 0) return i;
    return -1;
}

/* >>exec =================================================================================== */

aicf_result aicf_exec_create(aicf_plan* p, const aicf_exec_desc* desc, aicf_exec** out) {
    aicf_exec* e;
    aicf_result r;
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    e = (aicf_exec*)aicf__calloc(p->ctx, 1, sizeof *e);
    if (!e) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_exec_create: out of memory");
    e->ctx = p->ctx;
    e->plan = p;
    if (desc) e->desc = *desc;
    if (p->target == AICF_BACKEND_CUDA) {
        r = aicf__cuda_exec_create(e);
        if (r != AICF_SUCCESS) {
            aicf__free(p->ctx, e);
            return r;
        }
    } else {
        e->host_arena = (unsigned char*)aicf__malloc(p->ctx, p->arena_bytes ? p->arena_bytes : 1);
        if (!e->host_arena) {
            aicf__free(p->ctx, e);
            return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_exec_create: out of memory (arena of %zu bytes)",
                             p->arena_bytes);
        }
        /* poison: a read of memory nothing wrote shows up as NaN, not as a plausible number */
        memset(e->host_arena, 0xff, p->arena_bytes ? p->arena_bytes : 1);
    }
    *out = e;
    return AICF_SUCCESS;
}

void aicf_exec_destroy(aicf_exec* e) {
    if (!e) return;
    if (e->plan->target == AICF_BACKEND_CUDA) aicf__cuda_exec_destroy(e);
    aicf__free(e->ctx, e->host_arena);
    aicf__free(e->ctx, e);
}

static aicf_result aicf__exec_io_check(aicf_exec* e, int index, size_t bytes, int is_input, const char* fn) {
    const aicf_plan* p = e->plan;
    int n = is_input ? p->n_in : p->n_out;
    int t;
    size_t need;
    int ok;
    if (index < 0 || index >= n)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: index %d out of range (%d %s)", fn, index, n,
                         is_input ? "inputs" : "outputs");
    t = is_input ? p->in_tensor[index] : p->out_tensor[index];
    need = aicf__shape_bytes(&p->g->tensors[t].shape, p->g->tensors[t].dtype, &ok);
    if (bytes != need)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: %s %d '%s' has %zu bytes, got %zu", fn,
                         is_input ? "input" : "output", index, p->g->tensors[t].name, need, bytes);
    return AICF_SUCCESS;
}

aicf_result aicf_exec_set_input(aicf_exec* e, int index, const void* data, size_t bytes) {
    aicf_result r;
    if (!e || (!data && bytes)) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__exec_io_check(e, index, bytes, 1, "aicf_exec_set_input");
    if (r != AICF_SUCCESS) return r;
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_set_input(e, index, data, bytes, 0);
    memcpy(e->host_arena + e->plan->loc[e->plan->in_boundary[index]].offset, data, bytes);
    return AICF_SUCCESS;
}

aicf_result aicf_exec_set_input_device(aicf_exec* e, int index, uint64_t device_ptr, size_t bytes) {
    aicf_result r;
    if (!e) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__exec_io_check(e, index, bytes, 1, "aicf_exec_set_input_device");
    if (r != AICF_SUCCESS) return r;
    if (e->plan->target != AICF_BACKEND_CUDA)
        return aicf__err(e->ctx, AICF_ERROR_STATE, "aicf_exec_set_input_device: the plan runs on the CPU backend");
    return aicf__cuda_exec_set_input(e, index, (const void*)(uintptr_t)device_ptr, bytes, 1);
}

/* Copies the rank-r (<= 4) view v of base b (float32) to / from the contiguous d. */
static void aicf__view_copy(float* b, const aicf__view* v, const aicf__shape* s, float* d, int to_view) {
    int64_t n[4] = {1, 1, 1, 1}, st[4] = {0, 0, 0, 0}, i0, i1, i2, i3, k = 0;
    int r = s->rank, a;
    for (a = 0; a < r; a++) {
        n[4 - r + a] = s->d[a];
        st[4 - r + a] = v->st[a];
    }
    for (i0 = 0; i0 < n[0]; i0++)
        for (i1 = 0; i1 < n[1]; i1++)
            for (i2 = 0; i2 < n[2]; i2++)
                for (i3 = 0; i3 < n[3]; i3++, k++) {
                    float* e = b + v->off + i0 * st[0] + i1 * st[1] + i2 * st[2] + i3 * st[3];
                    if (to_view) *e = d[k];
                    else d[k] = *e;
                }
}

/* A step whose node reads or writes strided views (aicf__attention_views): the views gathered
   into contiguous copies, the node run on them, output 0 scattered into its view. */
static aicf_result aicf__cpu_run_views(aicf_exec* e, int s, const void* const* in, void* const* out) {
    aicf_graph* g = e->plan->g;
    const aicf__node* n = &g->nodes[e->plan->steps[s].node];
    const void* vin[AICF__STEP_MAX_IO];
    void* vout[AICF__STEP_MAX_IO];
    float* tmp[4] = {NULL, NULL, NULL, NULL};
    aicf_result r = AICF_SUCCESS;
    int j;
    for (j = 0; j < AICF__STEP_MAX_IO; j++) {
        vin[j] = in[j];
        vout[j] = out[j];
    }
    for (j = 0; j < 4 && r == AICF_SUCCESS; j++) {
        const aicf__view* v = &n->views->v[j];
        int t = j < 3 ? n->in[j] : n->out[0];
        if (v->base < 0) continue;
        tmp[j] = (float*)aicf__malloc(e->ctx, (size_t)aicf__shape_numel(&g->tensors[t].shape) * sizeof(float) + 1);
        if (!tmp[j]) {
            r = aicf__err(e->ctx, AICF_ERROR_OUT_OF_MEMORY, "step %d (node '%s'): out of memory for a view's copy", s, n->name);
            break;
        }
        if (j < 3) {
            aicf__view_copy((float*)(uintptr_t)in[j], v, &g->tensors[t].shape, tmp[j], 0);
            vin[j] = tmp[j];
        } else {
            vout[0] = tmp[j];
        }
    }
    if (r == AICF_SUCCESS) r = aicf__cpu_run(g, e->plan->steps[s].node, vin, vout);
    if (r == AICF_SUCCESS && tmp[3]) aicf__view_copy((float*)out[0], &n->views->v[3], &g->tensors[n->out[0]].shape, tmp[3], 1);
    for (j = 0; j < 4; j++) aicf__free(e->ctx, tmp[j]);
    return r;
}

/* One step of the CPU reference executor. */
aicf_result aicf__cpu_exec_step(aicf_exec* e, int s) {
    aicf_plan* p = e->plan;
    aicf_graph* g = p->g;
    const void* in[AICF__STEP_MAX_IO];
    void* outp[AICF__STEP_MAX_IO];
    int j;
    {
        const aicf__step* st = &p->steps[s];
        aicf_result r;
        for (j = 0; j < AICF__STEP_MAX_IO; j++) in[j] = outp[j] = NULL;
        if (st->kind != AICF__STEP_NODE)
            return aicf__err(e->ctx, AICF_ERROR_STATE, "step %d: cast steps do not run on the CPU backend", s);
        for (j = 0; j < st->n_in; j++) {
            int t = st->in[j];
            if (t < 0) in[j] = NULL;
            else if (p->loc[t].space == AICF__SPACE_WEIGHTS) in[j] = g->tensors[t].data;
            else in[j] = e->host_arena + p->loc[t].offset;
        }
        for (j = 0; j < st->n_out; j++) outp[j] = st->out[j] >= 0 ? e->host_arena + p->loc[st->out[j]].offset : NULL;
        if (st->pro > 0) { /* the absorbed LayerNormalization first, into its output (out[1]) */
            const void* lin[3];
            void* lout[3];
            if (!outp[1] || st->n_out < 2)
                return aicf__err(e->ctx, AICF_ERROR_STATE, "step %d (node '%s'): the fused LayerNorm's output has no storage", s,
                                 g->nodes[st->node].name);
            lin[0] = in[0];
            lin[1] = in[st->pro_in];
            lin[2] = in[st->pro_in + 1];
            lout[0] = outp[1];
            lout[1] = lout[2] = NULL;
            if ((r = aicf__cpu_run(g, st->pro - 1, lin, lout)) != AICF_SUCCESS) return r;
            in[0] = outp[1];
        }
        if (g->nodes[st->node].views) r = aicf__cpu_run_views(e, s, in, outp);
        else r = aicf__cpu_run(g, st->node, in, outp);
        if (r != AICF_SUCCESS) return r;
        if (st->n_epi > 0) { /* fused elementwise nodes, in place on output 0 */
            const void* opnd[AICF__EPI_MAX];
            for (j = 0; j < st->n_epi; j++) {
                int t = st->epi[j].operand;
                opnd[j] = t < 0 ? NULL
                                : (p->loc[t].space == AICF__SPACE_WEIGHTS ? g->tensors[t].data
                                                                         : (const void*)(e->host_arena + p->loc[t].offset));
            }
            r = aicf__cpu_epilogue(g, st->epi, st->n_epi, (float*)outp[0], &g->tensors[st->out[0]].shape, opnd);
            if (r != AICF_SUCCESS)
                return aicf__err(e->ctx, r, "step %d (node '%s'): epilogue failed", s, g->nodes[st->node].name);
        }
        if (st->post > 0) { /* the LayerNorm after it, in place on output 0, row by row */
            const void* lin[3];
            void* lout[3];
            lin[0] = outp[0];
            lin[1] = in[st->post_in];
            lin[2] = in[st->post_in + 1];
            lout[0] = outp[0];
            lout[1] = lout[2] = NULL;
            if ((r = aicf__cpu_run(g, st->post - 1, lin, lout)) != AICF_SUCCESS) return r;
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cpu_exec_run(aicf_exec* e) {
    int s;
    for (s = 0; s < e->plan->n_steps; s++) {
        aicf_result r = aicf__cpu_exec_step(e, s);
        if (r != AICF_SUCCESS) return r;
    }
    return AICF_SUCCESS;
}

aicf_result aicf_exec_launch(aicf_exec* e) {
    if (!e) return AICF_ERROR_INVALID_ARGUMENT;
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_launch(e);
    return aicf__cpu_exec_run(e);
}

aicf_result aicf_exec_wait(aicf_exec* e) {
    if (!e) return AICF_ERROR_INVALID_ARGUMENT;
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_wait(e);
    return AICF_SUCCESS;
}

aicf_result aicf_exec_run(aicf_exec* e) {
    aicf_result r = aicf_exec_launch(e);
    if (r != AICF_SUCCESS) return r;
    return aicf_exec_wait(e);
}

aicf_result aicf_exec_get_output(aicf_exec* e, int index, void* data, size_t bytes) {
    aicf_result r;
    int t;
    if (!e || (!data && bytes)) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__exec_io_check(e, index, bytes, 0, "aicf_exec_get_output");
    if (r != AICF_SUCCESS) return r;
    t = e->plan->out_boundary[index];
    if (aicf__is_const(e->plan->g, t)) {
        memcpy(data, e->plan->g->tensors[t].data, bytes);
        return AICF_SUCCESS;
    }
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_get_output(e, index, data, bytes);
    memcpy(data, e->host_arena + e->plan->loc[t].offset, bytes);
    return AICF_SUCCESS;
}

aicf_result aicf_exec_input_device_ptr(aicf_exec* e, int index, uint64_t* out) {
    if (!e || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= e->plan->n_in)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_input_device_ptr: index %d out of range", index);
    if (e->plan->target != AICF_BACKEND_CUDA)
        return aicf__err(e->ctx, AICF_ERROR_STATE, "aicf_exec_input_device_ptr: the plan runs on the CPU backend");
    return aicf__cuda_exec_device_ptr(e, e->plan->in_boundary[index], out);
}

aicf_result aicf_exec_output_device_ptr(aicf_exec* e, int index, uint64_t* out) {
    if (!e || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= e->plan->n_out)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_output_device_ptr: index %d out of range", index);
    if (e->plan->target != AICF_BACKEND_CUDA)
        return aicf__err(e->ctx, AICF_ERROR_STATE, "aicf_exec_output_device_ptr: the plan runs on the CPU backend");
    if (aicf__is_const(e->plan->g, e->plan->out_boundary[index]))
        return aicf__err(e->ctx, AICF_ERROR_STATE, "aicf_exec_output_device_ptr: output %d is a constant folded at plan time",
                         index);
    return aicf__cuda_exec_device_ptr(e, e->plan->out_boundary[index], out);
}

aicf_result aicf_exec_stats_get(const aicf_exec* e, aicf_exec_stats* out) {
    if (!e || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_stats(e, out);
    return AICF_SUCCESS;
}
