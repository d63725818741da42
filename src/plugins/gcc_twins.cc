// SPDX-License-Identifier: MIT
/*
 * ucov-twins for gcc (ucov cc --dormant): every function of a trace build gets
 * two bodies in its translation unit. The plain body keeps the function's
 * name, has no hook at all, and starts with a patchable entry (five bytes of
 * NOPs, which `ucov cc` makes one 5-byte NOP after the link); the twin,
 * "<name>.ucov_twin.N", is the same function with the hooks. While nobody
 * traces, the program runs its plain bodies, as an uninstrumented build
 * would; tracing turns each plain entry into a jump to its twin.
 *
 * Where it runs: right after gcc's "profile" pass (gcov's counters, with
 * --coverage), before anything else of the IPA passes, inlining included.
 * The twin is a copy of the body at that point: its counter updates are the
 * plain body's, on the same counters, and its static variables are the
 * function's own (a copy of a body never copies its statics). Then:
 *  - the IPA passes see both bodies as a trace build's are at that point
 *    (no hook yet: gcc adds sanitizer coverage later, function by function),
 *    so the twins inline what the trace build's functions inline;
 *  - after them, the plain bodies become no_sanitize_coverage, so trace-pc
 *    and trace-cmp go to the twins only (before that it would stop gcc from
 *    inlining a plain body into a twin);
 *  - -finstrument-functions' entry and exit calls (added before any pass,
 *    and inlined with their functions) are taken out of the plain bodies at
 *    the end of the GIMPLE passes;
 *  - a twin's calls of plain bodies become calls of their twins (traced
 *    code calls traced code, and each body has the callers it had: gcc
 *    inlines a static function called once in both worlds);
 *  - the plain body may not be cloned again (noclone: no constprop or isra
 *    version, which a caller would call instead of the patched entry); the
 *    twin may, as a trace build's function may;
 *  - a caller may rely on nothing the plain body alone does: the plugin
 *    wants -fno-ipa-ra and -fno-ipa-icf, and says so. What gcc's
 *    IPA passes find of a hook-free body (pure, const, a known return) a
 *    trace build's callers rely on too: its hooks come after those passes.
 * The pairs go into the non-allocated section .ucov_twins (two 8-byte
 * addresses each: plain, then twin; the linker resolves them), written at
 * the end of the IPA passes for the pairs whose both bodies are still there.
 * A function that cannot be copied, or that the linker may take from another
 * unit (weak, comdat), keeps its hooks in its one body, which `ucov cc
 * --dormant` patches call by call as before.
 */
// clang-format off
// (gcc's own headers, each after those it needs)
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "cgraph.h"
#include "stringpool.h"
#include "attribs.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "ssa.h"
#include "tree-ssa.h"
#include "tree-inline.h"
#include "diagnostic-core.h"
#include "gimple-walk.h"
#include "gimplify.h"
#include "varasm.h"
// clang-format on

#include <string>
#include <vector>

int plugin_is_GPL_compatible; // (MIT, which the GPL allows)

namespace {

struct twin {
  tree plain, copy;
};
std::vector<twin> twins;

tree with_attr(tree attrs, const char *name, tree args = NULL_TREE) {
  return tree_cons(get_identifier(name), args, attrs);
}

const char *const plain_attr = "ucov plain"; // (a name no source can write)

bool is_plain(tree decl) {
  return lookup_attribute(plain_attr, DECL_ATTRIBUTES(decl)) != NULL_TREE;
}

// The hooks of -finstrument-functions out of a plain body, its inlined
// callees' included.
const pass_data strip_data = {
    GIMPLE_PASS, "ucov_twins_strip", OPTGROUP_NONE, TV_NONE, PROP_cfg, 0, 0, 0, 0,
};

struct strip_pass : public gimple_opt_pass {
  explicit strip_pass(gcc::context *c) : gimple_opt_pass(strip_data, c) {}
  bool gate(function *fn) override {
    return flag_instrument_function_entry_exit && is_plain(fn->decl);
  }
  unsigned int execute(function *fn) override {
    basic_block bb;
    FOR_EACH_BB_FN(bb, fn) {
      for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);) {
        gimple *s = gsi_stmt(gsi);
        if (gimple_call_builtin_p(s, BUILT_IN_PROFILE_FUNC_ENTER) ||
            gimple_call_builtin_p(s, BUILT_IN_PROFILE_FUNC_EXIT)) {
          unlink_stmt_vdef(s);
          gsi_remove(&gsi, true);
          release_defs(s);
        } else {
          gsi_next(&gsi);
        }
      }
    }
    cgraph_edge::rebuild_edges();
    return 0;
  }
};

// Is a table of label addresses in a static (computed goto's jump table)
// all that keeps gcc from copying fn? Such a function is copied with the
// flag cleared, and its twin gets its own tables (twin_tables).
bool tables_only(function *fn) {
  return fn && fn->has_forced_label_in_static && !fn->has_nonlocal_label &&
         !lookup_attribute("noclone", DECL_ATTRIBUTES(fn->decl));
}

// The labels of fn's body, in order.
std::vector<tree> labels_of(function *fn) {
  std::vector<tree> v;
  basic_block bb;
  FOR_EACH_BB_FN(bb, fn) {
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
      if (glabel *l = dyn_cast<glabel *>(gsi_stmt(gsi)))
        v.push_back(gimple_label_label(l));
  }
  return v;
}

struct remap {
  const std::vector<tree> *from, *to;
  tree old_var, new_var;
};

// (walk_tree: a label of the plain body becomes the twin's)
tree map_label(tree *tp, int *walk_subtrees, void *data) {
  const remap *m = static_cast<const remap *>(data);
  if (TREE_CODE(*tp) == LABEL_DECL) {
    for (size_t i = 0; i < m->from->size(); i++)
      if ((*m->from)[i] == *tp) {
        *tp = (*m->to)[i];
        break;
      }
    *walk_subtrees = 0;
  }
  return NULL_TREE;
}

// (walk_gimple_op: the plain body's table becomes the twin's)
tree map_var(tree *tp, int *walk_subtrees, void *data) {
  walk_stmt_info *wi = static_cast<walk_stmt_info *>(data);
  const remap *m = static_cast<const remap *>(wi->info);
  if (*tp == m->old_var) {
    *tp = m->new_var;
    wi->changed = true;
  }
  if (TYPE_P(*tp) || DECL_P(*tp))
    *walk_subtrees = 0;
  return NULL_TREE;
}

// The twin tw of pf, copied with its tables of label addresses: each table
// copied for the twin, its labels the twin's (the copy keeps the labels'
// order), and the twin's uses made the copy's. false: the bodies' labels do
// not pair up (the twin is then not used).
bool twin_tables(function *pf, function *tw) {
  std::vector<tree> from = labels_of(pf), to = labels_of(tw);
  if (from.size() != to.size())
    return false;
  unsigned ix;
  tree var;
  std::vector<tree> tables;
  FOR_EACH_LOCAL_DECL(pf, ix, var) {
    if (VAR_P(var) && TREE_STATIC(var) && DECL_INITIAL(var) &&
        TREE_CODE(DECL_INITIAL(var)) == CONSTRUCTOR)
      tables.push_back(var);
  }
  for (tree old_var : tables) {
    tree nv = copy_node(old_var);
    DECL_NAME(nv) = get_identifier(
        (std::string(IDENTIFIER_POINTER(DECL_NAME(old_var))) + ".ucov_twin").c_str());
    SET_DECL_ASSEMBLER_NAME(nv, NULL_TREE);
    DECL_CONTEXT(nv) = tw->decl;
    remap m = {&from, &to, old_var, nv};
    tree init = unshare_expr(DECL_INITIAL(old_var));
    walk_tree(&init, map_label, &m, NULL);
    DECL_INITIAL(nv) = init;
    add_local_decl(tw, nv);
    varpool_node::finalize_decl(nv);
    varpool_node::get_create(nv)->force_output = 1; // (the twin's references are not redone)
    basic_block bb;
    FOR_EACH_BB_FN(bb, tw) {
      for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        walk_stmt_info wi;
        memset(&wi, 0, sizeof(wi));
        wi.info = &m;
        walk_gimple_op(gsi_stmt(gsi), map_var, &wi);
        if (wi.changed)
          update_stmt(gsi_stmt(gsi));
      }
    }
  }
  tw->has_forced_label_in_static = 1;
  return true;
}

bool twinnable(cgraph_node *n) {
  tree d = n->decl;
  // (weak, comdat: the linker may keep another unit's body, whose entry
  // would then be paired with this unit's twin)
  // (of gcc's own functions, only the parts of functions it split: their
  // callers are functions that have twins)
  // (main: entered before anyone can trace, its twin would never run; it
  // keeps its hooks, patched call by call, as a trace build's main traces)
  return !n->clone_of && !n->inlined_to && (!DECL_ARTIFICIAL(d) || n->split_part) &&
         !MAIN_NAME_P(DECL_NAME(d)) && !DECL_WEAK(d) && !DECL_COMDAT(d) && !DECL_ONE_ONLY(d) &&
         !DECL_DISREGARD_INLINE_LIMITS(d) && // (always_inline: in its callers' bodies)
         !lookup_attribute("no_sanitize_coverage", DECL_ATTRIBUTES(d)) &&
         !lookup_attribute("naked", DECL_ATTRIBUTES(d)) &&
         !lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(d)) &&
         (tree_versionable_function_p(d) || tables_only(DECL_STRUCT_FUNCTION(d)));
}

// A twin's direct calls of plain bodies with a twin made calls of those
// twins: traced code calls traced code, as in a trace build, and each body
// keeps one caller where it had one (gcc inlines a static function called
// once into its caller, in both worlds).
void call_twins(cgraph_node *c, hash_map<tree, tree> &twin_of) {
  function *fn = DECL_STRUCT_FUNCTION(c->decl);
  push_cfun(fn);
  bool changed = false;
  basic_block bb;
  FOR_EACH_BB_FN(bb, fn) {
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
      gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
      tree callee = call ? gimple_call_fndecl(call) : NULL_TREE;
      tree *to = callee ? twin_of.get(callee) : NULL;
      if (to) {
        gimple_call_set_fndecl(call, *to);
        update_stmt(call);
        changed = true;
      }
    }
  }
  if (changed)
    cgraph_edge::rebuild_edges();
  pop_cfun();
}

const pass_data twins_data = {
    SIMPLE_IPA_PASS, "ucov_twins", OPTGROUP_NONE, TV_NONE, PROP_cfg, 0, 0, 0, 0,
};

struct twins_pass : public simple_ipa_opt_pass {
  explicit twins_pass(gcc::context *c) : simple_ipa_opt_pass(twins_data, c) {}
  bool gate(function *) override {
    return (flag_sanitize_coverage || flag_instrument_function_entry_exit) && !in_lto_p &&
           !flag_lto;
  }
  unsigned int execute(function *) override {
    std::vector<cgraph_node *> fns;
    cgraph_node *n;
    FOR_EACH_FUNCTION_WITH_GIMPLE_BODY(n) {
      if (twinnable(n))
        fns.push_back(n);
    }
    tree entry = tree_cons(NULL_TREE, build_int_cst(integer_type_node, 5),
                           tree_cons(NULL_TREE, build_int_cst(integer_type_node, 0), NULL_TREE));
    hash_map<tree, tree> twin_of; // plain decl -> its twin's
    std::vector<cgraph_node *> made;
    for (cgraph_node *p : fns) {
      function *pf = DECL_STRUCT_FUNCTION(p->decl);
      bool tables = pf->has_forced_label_in_static;
      if (tables) { // (copied, its tables apart: twin_tables)
        pf->has_forced_label_in_static = 0;
        pf->cannot_be_copied_set = 0;
        pf->cannot_be_copied_reason = NULL;
      }
      cgraph_node *c =
          p->create_version_clone_with_body(vNULL, NULL, NULL, NULL, NULL, "ucov_twin");
      if (tables) {
        pf->has_forced_label_in_static = 1;
        pf->cannot_be_copied_set = 0;
      }
      if (!c)
        continue;
      if (tables && !twin_tables(pf, DECL_STRUCT_FUNCTION(c->decl)))
        continue; // (left unused: the plain body keeps its hooks)
      // The twin is entered by a jump from the plain entry, with the plain
      // body's convention: a function that may be called from elsewhere
      // (exported, its address taken) keeps a twin that is not local, whose
      // callers gcc would take to be all known, and that stays (only the
      // table refers to it). A local one's twin is as local, called by the
      // twins alone (call_twins): inlined where the plain body is, gone
      // where it is (after_ipa then pairs what is left).
      if (!p->local || p->address_taken || p->force_output || p->externally_visible) {
        c->force_output = 1;
        c->address_taken = 1;
        c->local = 0;
      }
      // (what gcc knows of the function and a version does not inherit:
      // a part it split keeps being one, which the inliner does not merge
      // back; a cold function stays cold, which it does not inline into)
      c->can_change_signature = p->can_change_signature;
      c->split_part = p->split_part;
      c->frequency = p->frequency;
      c->only_called_at_startup = p->only_called_at_startup;
      c->only_called_at_exit = p->only_called_at_exit;
      c->nonfreeing_fn = p->nonfreeing_fn;
      // (the plain entry is what callers call: no constprop or isra version
      // of the plain body; the twin's callers are twins, which call its
      // versions as a trace build's callers do: see after_ipa for a plain
      // body whose twin was versioned away)
      tree a = with_attr(DECL_ATTRIBUTES(p->decl), "noclone");
      a = with_attr(a, plain_attr);
      DECL_ATTRIBUTES(p->decl) = with_attr(a, "patchable_function_entry", entry);
      twins.push_back({p->decl, c->decl});
      twin_of.put(p->decl, c->decl);
      made.push_back(c);
    }
    for (cgraph_node *c : made)
      call_twins(c, twin_of);
    return 0;
  }
};

std::string asm_name(tree decl) {
  const char *s = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl));
  return s[0] == '*' ? s + 1 : s;
}

// Is decl's body still to be written (not inlined everywhere and gone)?
bool emitted(tree decl) {
  cgraph_node *n = cgraph_node::get(decl);
  return n && n->definition && !n->inlined_to && !DECL_EXTERNAL(decl);
}

// After the IPA passes: the table of the pairs whose both bodies are still
// there is written, and their plain bodies lose sanitizer coverage. A plain
// body whose twin is gone (inlined into the twins everywhere, or replaced by
// a version of it) runs in the plain world only, where it stays hook-free,
// unless a function that traces calls it (main, a function without twin, or
// such a plain body that does): that one keeps its hooks, patched call by
// call, as a body without twin does.
void after_ipa(void *, void *) {
  hash_set<tree> gone, hooked;
  for (const twin &t : twins)
    if (!emitted(t.copy) && emitted(t.plain))
      gone.add(t.plain);
  for (bool more = true; more;) {
    more = false;
    for (const twin &t : twins) {
      if (!gone.contains(t.plain) || hooked.contains(t.plain))
        continue;
      for (cgraph_edge *e = cgraph_node::get(t.plain)->callers; e; e = e->next_caller) {
        cgraph_node *c = e->caller->inlined_to ? e->caller->inlined_to : e->caller;
        if (!is_plain(c->decl) || hooked.contains(c->decl)) {
          hooked.add(t.plain);
          more = true;
          break;
        }
      }
    }
  }
  std::string s;
  for (const twin &t : twins) {
    if (hooked.contains(t.plain)) {
      tree a = remove_attribute(plain_attr, DECL_ATTRIBUTES(t.plain));
      DECL_ATTRIBUTES(t.plain) = remove_attribute("patchable_function_entry", a);
      continue;
    }
    DECL_ATTRIBUTES(t.plain) = with_attr(DECL_ATTRIBUTES(t.plain), "no_sanitize_coverage");
    if (gone.contains(t.plain))
      DECL_ATTRIBUTES(t.plain) =
          remove_attribute("patchable_function_entry", DECL_ATTRIBUTES(t.plain));
    else if (emitted(t.plain) && emitted(t.copy))
      s += "\t.quad " + asm_name(t.plain) + "\n\t.quad " + asm_name(t.copy) + "\n";
  }
  twins.clear();
  if (s.empty())
    return;
  s = "\t.pushsection .ucov_twins,\"R\",@progbits\n" + s + "\t.popsection\n";
  symtab->finalize_toplevel_asm(build_string((int)s.size(), s.c_str()));
}

} // namespace

// pass, inserted after the first instance of the pass named after.
static void register_after(plugin_name_args *info, opt_pass *pass, const char *after) {
  register_pass_info p;
  p.pass = pass;
  p.reference_pass_name = after;
  p.ref_pass_instance_number = 1;
  p.pos_op = PASS_POS_INSERT_AFTER;
  register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &p);
}

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version) {
  if (!plugin_default_version_check(version, &gcc_version))
    return 1;
  // A caller of a plain body must not rely on what that body alone does:
  // IPA-RA would keep values in the registers the plain body leaves alone
  // (its twin may not), and identical code folding would make two plain
  // bodies one address with two twins.
  if (flag_ipa_ra || flag_ipa_icf_functions) {
    error("ucov-twins: needs %<-fno-ipa-ra -fno-ipa-icf%>");
    return 1;
  }
  register_after(info, new twins_pass(g), "profile");
  register_after(info, new strip_pass(g), "optimized");
  register_callback(info->base_name, PLUGIN_ALL_IPA_PASSES_END, after_ipa, NULL);
  return 0;
}
