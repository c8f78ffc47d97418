//! The `kdelta` binary: parse arguments, run, map the outcome to an exit code.

#![allow(clippy::result_large_err)]

mod cli;

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

// Rendering allocates and frees node trees by the million: mimalloc (as ruff and uv ship it)
// spends far less time there than glibc's allocator. It asks for transparent huge pages;
// `cli::huge_pages` turns them off for every command but `render` (see there why).
#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// mimalloc, through its plain entry points when the alignment asked for is one every block
/// has (`mimalloc::MiMalloc` calls the aligned ones for all, whose checks were a third of
/// the allocator's instructions in a chart's render).
struct Allocator;

/// The alignment of every mimalloc block: its sizes are multiples of a word.
const BLOCK_ALIGN: usize = std::mem::size_of::<usize>();

// SAFETY: each call is mimalloc's own for the layout: the plain functions only where the
// alignment is at most a word, which every mimalloc block has; the aligned ones otherwise.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            libmimalloc_sys::mi_malloc(layout.size()).cast()
        } else {
            mimalloc::MiMalloc.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            libmimalloc_sys::mi_zalloc(layout.size()).cast()
        } else {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        libmimalloc_sys::mi_free(ptr.cast::<c_void>());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            libmimalloc_sys::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            mimalloc::MiMalloc.realloc(ptr, layout, new_size)
        }
    }
}

fn main() {
    std::process::exit(cli::run());
}
