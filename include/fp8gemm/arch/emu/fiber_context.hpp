// SPDX-License-Identifier: MIT
/// Host emulator (arch layer): guarded fiber stacks, a stack cache, and the user-space context
/// switch (x86-64 inline asm without the sigprocmask syscall of swapcontext; ucontext fallback
/// elsewhere).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <system_error>
#include <utility>
#include <vector>

// FP8GEMM_EMU_ASM_SWITCH: the inline-asm switch (x86-64). Define FP8GEMM_EMU_USE_UCONTEXT to test
// the portable makecontext/swapcontext path on x86-64 too (slower: one syscall per switch).
#if defined(__x86_64__) && !defined(FP8GEMM_EMU_USE_UCONTEXT)
#define FP8GEMM_EMU_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif

// Valgrind must be told about each fiber stack, or it takes every switch for a huge stack change.
#if defined(__has_include) && !defined(FP8GEMM_EMU_NO_VALGRIND)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define FP8GEMM_EMU_HAVE_VALGRIND 1
#endif
#endif

// AddressSanitizer must be told about every stack switch (it keeps per-stack shadow and fake
// frames).
#if defined(__SANITIZE_ADDRESS__)
#define FP8GEMM_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FP8GEMM_EMU_ASAN 1
#endif
#endif
#if defined(FP8GEMM_EMU_ASAN)
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(FP8GEMM_EMU_ASM_SWITCH)
// fp8gemm_emu_switch_context(save_sp, load_sp): pushes the callee-saved registers (SysV: rbx, rbp,
// r12-r15) and the MXCSR / x87 control words on the current stack, stores rsp to *save_sp, loads
// load_sp and pops the same frame from there. Emitted in a COMDAT group so that every translation
// unit that includes this header may define it and the linker keeps one copy.
// NOTE: this is the hot path of the emulator (tens of millions of calls per test run).
extern "C" __attribute__((visibility("hidden"))) void fp8gemm_emu_switch_context(void** save_sp,
                                                                                 void* load_sp);
__asm__(
    ".pushsection .text.fp8gemm_emu_switch_context,\"axG\",@progbits,"
    "fp8gemm_emu_switch_context,comdat\n"
    ".globl fp8gemm_emu_switch_context\n"
    ".hidden fp8gemm_emu_switch_context\n"
    ".type fp8gemm_emu_switch_context,@function\n"
    ".p2align 4\n"
    "fp8gemm_emu_switch_context:\n"
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  subq $8, %rsp\n"
    "  stmxcsr (%rsp)\n"
    "  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n"
    "  fldcw 4(%rsp)\n"
    "  addq $8, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    ".size fp8gemm_emu_switch_context, .-fp8gemm_emu_switch_context\n"
    ".popsection\n");
#endif

namespace fp8gemm::emu {

inline constexpr std::size_t kDefaultFiberStackBytes = std::size_t{256} << 10;  // per GPU thread

/// One fiber stack: mmap'd, with a PROT_NONE guard page at its low end so an overflow faults.
class FiberStack {
 public:
  FiberStack() = default;
  explicit FiberStack(std::size_t usable_bytes) {
    std::size_t const page = page_bytes();
    usable_ = (usable_bytes + page - 1) / page * page;
    mapped_ = usable_ + page;
    void* base = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (base == MAP_FAILED)
      throw std::system_error(errno, std::generic_category(), "fiber stack mmap");
    base_ = static_cast<unsigned char*>(base);
    if (::mprotect(base_, page, PROT_NONE) != 0) {
      int const err = errno;
      ::munmap(base_, mapped_);
      throw std::system_error(err, std::generic_category(), "fiber stack guard page");
    }
#if defined(FP8GEMM_EMU_HAVE_VALGRIND)
    valgrind_id_ = VALGRIND_STACK_REGISTER(base_ + page, base_ + mapped_);
#endif
  }
  FiberStack(FiberStack&& o) noexcept {
    swap(o);
  }
  FiberStack& operator=(FiberStack&& o) noexcept {
    FiberStack(std::move(o)).swap(*this);
    return *this;
  }
  FiberStack(FiberStack const&) = delete;
  FiberStack& operator=(FiberStack const&) = delete;
  ~FiberStack() {
    if (!base_) return;
#if defined(FP8GEMM_EMU_HAVE_VALGRIND)
    VALGRIND_STACK_DEREGISTER(valgrind_id_);
#endif
    ::munmap(base_, mapped_);
  }

  void swap(FiberStack& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(mapped_, o.mapped_);
    std::swap(usable_, o.usable_);
    std::swap(valgrind_id_, o.valgrind_id_);
  }
  unsigned char* low() const {
    return base_ + (mapped_ - usable_);
  }  // first usable byte
  unsigned char* top() const {
    return base_ + mapped_;
  }  // one past the high end
  std::size_t usable_bytes() const {
    return usable_;
  }

  static std::size_t page_bytes() {
    static std::size_t const page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return page;
  }

 private:
  unsigned char* base_ = nullptr;  // guard page, then usable_ bytes
  std::size_t mapped_ = 0;
  std::size_t usable_ = 0;
  unsigned valgrind_id_ = 0;
};

/// Process-wide cache of fiber stacks, so launches and workgroups reuse them instead of re-mapping.
class FiberStackCache {
 public:
  static FiberStackCache& instance() {
    static FiberStackCache cache;
    return cache;
  }
  FiberStack acquire(std::size_t usable_bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (std::size_t i = free_.size(); i-- > 0;) {
        if (free_[i].usable_bytes() == round_to_page(usable_bytes)) {
          FiberStack s = std::move(free_[i]);
          free_[i] = std::move(free_.back());
          free_.pop_back();
          return s;
        }
      }
    }
    return FiberStack(usable_bytes);
  }
  void release(FiberStack&& stack) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() < kMaxCached) free_.push_back(std::move(stack));
  }

 private:
  static constexpr std::size_t kMaxCached = 4096;
  static std::size_t round_to_page(std::size_t n) {
    std::size_t const page = FiberStack::page_bytes();
    return (n + page - 1) / page * page;
  }
  std::mutex mutex_;
  std::vector<FiberStack> free_;
};

/// Saved state of a suspended fiber (or of the OS thread's own context).
struct FiberContext {
#if defined(FP8GEMM_EMU_ASM_SWITCH)
  void* sp = nullptr;  // points at the frame fp8gemm_emu_switch_context pops
#else
  ucontext_t uc;
#endif
#if defined(FP8GEMM_EMU_ASAN)
  void const* stack_low = nullptr;
  std::size_t stack_bytes = 0;
  void* fake_stack = nullptr;
#endif
};

/// Prepares ctx to stand for the calling OS thread's own stack (needed only for sanitizers).
inline void context_init_thread([[maybe_unused]] FiberContext& ctx) {
#if defined(FP8GEMM_EMU_ASAN)
  pthread_attr_t attr;
  if (::pthread_getattr_np(::pthread_self(), &attr) == 0) {
    void* low = nullptr;
    std::size_t bytes = 0;
    ::pthread_attr_getstack(&attr, &low, &bytes);
    ctx.stack_low = low;
    ctx.stack_bytes = bytes;
    ::pthread_attr_destroy(&attr);
  }
#endif
}

/// First call of a fiber's entry function, before anything else runs on the new stack.
inline void context_entered() {
#if defined(FP8GEMM_EMU_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
}

/// Prepares ctx so that the first switch to it calls entry() on stack; entry must never return.
inline void context_init(FiberContext& ctx, FiberStack const& stack, void (*entry)()) {
#if defined(FP8GEMM_EMU_ASAN)
  ctx.stack_low = stack.low();
  ctx.stack_bytes = stack.usable_bytes();
  ctx.fake_stack = nullptr;
  // A reused stack still carries the redzones of frames that never returned (exited fibers).
  __asan_unpoison_memory_region(stack.low(), stack.usable_bytes());
#endif
#if defined(FP8GEMM_EMU_ASM_SWITCH)
  auto top = reinterpret_cast<std::uintptr_t>(stack.top()) & ~std::uintptr_t{15};
  // Frame popped by the switch: [cw slot][r15 r14 r13 r12 rbx rbp][ret = entry][fake ret = 0].
  // After its ret, rsp = top - 8, as if entry had been called from a 16-byte aligned frame.
  auto* frame = reinterpret_cast<std::uint64_t*>(top - 72);
  std::uint32_t mxcsr;
  std::uint16_t fpu_cw;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(fpu_cw));
  frame[0] = static_cast<std::uint64_t>(mxcsr) | (static_cast<std::uint64_t>(fpu_cw) << 32);
  for (int i = 1; i <= 6; ++i) frame[i] = 0;
  frame[7] = reinterpret_cast<std::uint64_t>(entry);
  frame[8] = 0;
  ctx.sp = frame;
#else
  if (::getcontext(&ctx.uc) != 0)
    throw std::system_error(errno, std::generic_category(), "getcontext");
  ctx.uc.uc_stack.ss_sp = stack.low();
  ctx.uc.uc_stack.ss_size = stack.usable_bytes();
  ctx.uc.uc_link = nullptr;
  ::makecontext(&ctx.uc, entry, 0);
#endif
}

/// Saves the running context into from and resumes to; returns when something switches back.
/// from_exits: from is a finished fiber that will never be resumed.
inline __attribute__((always_inline)) void context_switch(
    FiberContext& from, FiberContext& to, [[maybe_unused]] bool from_exits = false) {
#if defined(FP8GEMM_EMU_ASAN)
  __sanitizer_start_switch_fiber(from_exits ? nullptr : &from.fake_stack, to.stack_low,
                                 to.stack_bytes);
#endif
#if defined(FP8GEMM_EMU_ASM_SWITCH)
  fp8gemm_emu_switch_context(&from.sp, to.sp);
#else
  ::swapcontext(&from.uc, &to.uc);
#endif
#if defined(FP8GEMM_EMU_ASAN)
  __sanitizer_finish_switch_fiber(from.fake_stack, nullptr, nullptr);
#endif
}

}  // namespace fp8gemm::emu
