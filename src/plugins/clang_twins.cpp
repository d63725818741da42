// SPDX-License-Identifier: MIT
/*
 * ucov-twins for clang 14, 16 and 19 (-fpass-plugin; ucov cc --dormant; one
 * build per LLVM): the same twins as gcc_twins.cc. Every function of the
 * module gets a twin,
 * "<name>.ucov_twin", the same body with the hooks; the function itself (the
 * plain body) has no hook and a 5-byte patchable entry. While nobody traces
 * the program runs its plain bodies; tracing turns each plain entry into a
 * jump to its twin.
 *
 * Where it runs: at the end of the optimization pipeline (OptimizerLast),
 * where clang adds sanitizer coverage too, after this plugin (a plugin's
 * callbacks are registered first). So the twin is a copy of the optimized
 * body that a trace build instruments: the same inlining, the same blocks,
 * the same hook calls. gcov's counters (--coverage) and the profile's
 * (-fprofile-instr-generate) are in the body by then, added at the start of
 * the pipeline: the twin updates the plain body's counters. Then:
 *  - the plain body is nosanitize_coverage;
 *  - -finstrument-functions' entry and exit calls (added at the start of the
 *    pipeline, inlined with their functions) are taken out of it, and so
 *    is -finstrument-functions-after-inlining's request for them;
 *  - what LLVM found of the hook-free body before (readnone, a known
 *    return) a trace build's callers rely on too: it too was found before
 *    the hooks.
 * A function whose blocks' addresses are in a table (computed goto) gets
 * its own copy of the table, its blocks the twin's.
 * The pairs go into the non-allocated section .ucov_twins (two 8-byte
 * addresses each: plain, then twin), as gcc's plugin writes them. A function
 * the linker may take from another unit (weak, comdat, available_externally)
 * keeps its hooks in its one body, which `ucov cc --dormant` patches call by
 * call as before.
 */
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <string>
#include <vector>

using namespace llvm;

namespace {

// (StringRef's own spelling of this changed between LLVM 14 and 19)
bool has_prefix(StringRef s, StringRef p) {
  return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

bool twinnable(const Function &F) {
  StringRef n = F.getName();
  return !F.isDeclaration() && !F.hasComdat() && !F.isWeakForLinker() &&
         !F.hasAvailableExternallyLinkage() && !F.hasFnAttribute(Attribute::NoSanitizeCoverage) &&
         !F.hasFnAttribute(Attribute::Naked) &&
         !F.hasFnAttribute(Attribute::AlwaysInline) && // (in its callers' bodies)
         !has_prefix(n, "__llvm_") && !has_prefix(n, "llvm.") &&
         n != "main"; // (entered before anyone can trace: as gcc_twins.cc)
}

// -finstrument-functions' calls out of F (its inlined callees' included).
void strip_entry_exit(Function &F) {
  F.removeFnAttr("instrument-function-entry-inlined");
  F.removeFnAttr("instrument-function-exit-inlined");
  std::vector<Instruction *> dead;
  for (BasicBlock &B : F)
    for (Instruction &I : B)
      if (auto *C = dyn_cast<CallInst>(&I))
        if (Function *callee = C->getCalledFunction())
          if (callee->getName() == "__cyg_profile_func_enter" ||
              callee->getName() == "__cyg_profile_func_exit")
            dead.push_back(C);
  for (Instruction *I : dead)
    I->eraseFromParent();
}

// Does the constant c refer to a block of F (blockaddress)?
bool has_block_of(const Constant *c, const Function *F) {
  if (auto *b = dyn_cast<BlockAddress>(c))
    return b->getFunction() == F;
  for (const Use &u : c->operands())
    if (auto *k = dyn_cast<Constant>(u.get()))
      if (has_block_of(k, F))
        return true;
  return false;
}

// The tables of F's block addresses (a computed goto's jump table), copied
// for its twin T: each copy's blocks are T's, and T's instructions use the
// copies. false, before anything is copied: a table is used through a
// constant expression, which is not followed (T is then dropped).
bool twin_tables(Module &M, Function *F, Function *T, ValueToValueMapTy &vmap) {
  bool blocks_taken = false;
  for (const BasicBlock &B : *F)
    blocks_taken |= B.hasAddressTaken();
  if (!blocks_taken)
    return true; // (no table can hold one of F's blocks)
  std::vector<GlobalVariable *> tables;
  for (GlobalVariable &G : M.globals())
    if (G.hasInitializer() && has_block_of(G.getInitializer(), F))
      tables.push_back(&G);
  for (GlobalVariable *G : tables)
    for (User *u : G->users())
      if (!isa<Instruction>(u))
        return false;
  vmap[F] = T;
  for (GlobalVariable *G : tables) {
    Constant *init = MapValue(G->getInitializer(), vmap);
    auto *copy =
        new GlobalVariable(M, G->getValueType(), G->isConstant(), GlobalValue::InternalLinkage,
                           init, G->getName() + ".ucov_twin");
    copy->setAlignment(G->getAlign());
    G->replaceUsesWithIf(copy, [T](Use &u) {
      auto *I = dyn_cast<Instruction>(u.getUser());
      return I && I->getFunction() == T;
    });
  }
  return true;
}

struct Twins : PassInfoMixin<Twins> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    std::vector<Function *> fns;
    for (Function &F : M)
      if (twinnable(F))
        fns.push_back(&F);
    std::string table;
    std::vector<GlobalValue *> keep;
    for (Function *F : fns) {
      ValueToValueMapTy vmap;
      Function *T = CloneFunction(F, vmap);
      T->setName(F->getName() + ".ucov_twin");
      T->setLinkage(GlobalValue::InternalLinkage);
      T->setVisibility(GlobalValue::DefaultVisibility);
      if (!twin_tables(M, F, T, vmap)) {
        T->eraseFromParent();
        continue; // (F keeps its hooks, patched call by call)
      }
      F->addFnAttr(Attribute::NoSanitizeCoverage);
      F->addFnAttr("patchable-function-entry", "5");
      strip_entry_exit(*F);
      keep.push_back(T); // (only the table refers to it)
      table += "\t.quad \"" + F->getName().str() + "\"\n\t.quad \"" + T->getName().str() + "\"\n";
    }
    if (table.empty())
      return PreservedAnalyses::all();
    appendToCompilerUsed(M, keep);
    M.appendModuleInlineAsm("\t.pushsection .ucov_twins,\"R\",@progbits\n" + table +
                            "\t.popsection");
    return PreservedAnalyses::none();
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ucov-twins", "1", [](PassBuilder &PB) {
#if LLVM_VERSION_MAJOR >= 20
            PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel,
                                                  ThinOrFullLTOPhase) { MPM.addPass(Twins()); });
#else
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(Twins()); });
#endif
          }};
}
