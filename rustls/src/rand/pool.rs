//! [`super::OsRandom`]'s per-thread pool of operating-system random bytes (Linux and
//! Android): one `getrandom` call per [`POOL`] bytes instead of one per draw (a handshake
//! makes several draws of 32 bytes).
//!
//! Each byte is fresh output of the kernel's generator, handed out once: a draw takes its
//! bytes off the end of the pool and clears them at once, the rest is cleared when the
//! thread ends. The pool lives in its own anonymous page marked `MADV_WIPEONFORK`
//! (Linux 4.14, madvise(2)): a child process after `fork` finds the page zero-filled,
//! count included, so it refills from the kernel and never hands out its parent's bytes.
//! Where the page cannot be mapped or marked (an older kernel answers `EINVAL`), draws go
//! straight to `getrandom`, as without the pool.

use core::cell::OnceCell;
use core::ptr::NonNull;
use rustls::crypto::GetRandomFailed;
use zeroize::Zeroize;

/// Pooled bytes, fetched by one `getrandom` call.
const POOL: usize = 1024;

/// Larger draws go straight to `getrandom`: the pool saves nothing there.
pub(super) const MAX_DRAW: usize = 256;

/// The mapping's length (the kernel rounds it up to its page size).
const MAP_LEN: usize = 4096;

/// Offset of the pool in the page; the first word holds the count of unused bytes.
const BYTES: usize = 64;

const _: () = assert!(BYTES + POOL <= MAP_LEN);

/// One anonymous page: the count of unused bytes at offset 0, the pool at [`BYTES`]; the
/// unused bytes are the first `count` of the pool. Owned by one thread (a raw pointer makes
/// it neither `Send` nor `Sync`).
pub(super) struct Page(NonNull<u8>);

impl Page {
    /// A fresh page, empty; `wipe` marks it `MADV_WIPEONFORK` (the tests leave it off to
    /// show what the mark prevents). `None` if the kernel refuses either.
    pub(super) fn new(wipe: bool) -> Option<Page> {
        // SAFETY: a new private anonymous mapping at an address of the kernel's choosing;
        // no memory of this process is touched.
        let p = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                MAP_LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        // A new anonymous mapping reads as zeros: count 0, an empty pool.
        let page = Page(NonNull::new(p.cast())?);
        // SAFETY: the whole of the mapping just made, which only `page` refers to.
        if wipe && unsafe { libc::madvise(p, MAP_LEN, libc::MADV_WIPEONFORK) } != 0 {
            return None; // `page` unmaps it
        }
        Some(page)
    }

    /// The count of unused bytes and the pool.
    fn parts(&mut self) -> (&mut usize, &mut [u8; POOL]) {
        let base = self.0.as_ptr();
        // SAFETY: the mapping is MAP_LEN bytes, readable and writable, page-aligned, and
        // lives as long as `self`; the word at 0 and the bytes at BYTES..BYTES + POOL do not
        // overlap, and `&mut self` makes these the only references to them.
        unsafe {
            (
                &mut *base.cast::<usize>(),
                &mut *base.add(BYTES).cast::<[u8; POOL]>(),
            )
        }
    }

    /// Fills `buf` from the pool, refilling it from the kernel when it runs out.
    pub(super) fn fill(&mut self, mut buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        let (count, pool) = self.parts();
        while !buf.is_empty() {
            if *count == 0 {
                getrandom::fill(pool).map_err(|_| GetRandomFailed)?;
                *count = POOL;
            }
            // After a wipe the count reads 0: a count above POOL is never seen, but the
            // bound keeps the slice in range whatever the page holds.
            let left = (*count).min(POOL);
            let n = left.min(buf.len());
            let taken = &mut pool[left - n..left];
            let (now, rest) = buf.split_at_mut(n);
            now.copy_from_slice(taken);
            taken.zeroize();
            *count = left - n;
            buf = rest;
        }
        Ok(())
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        let (count, pool) = self.parts();
        pool.zeroize();
        *count = 0;
        // SAFETY: the mapping made in `new`, unmapped once; nothing refers to it after.
        unsafe { libc::munmap(self.0.as_ptr().cast(), MAP_LEN) };
    }
}

thread_local! {
    /// This thread's page, made at its first draw; `None` if the kernel refused it.
    static PAGE: OnceCell<Option<core::cell::RefCell<Page>>> = const { OnceCell::new() };
}

/// Fills `buf` from this thread's pool, or straight from `getrandom` where there is none
/// (no page, or the thread is ending).
pub(super) fn fill(buf: &mut [u8]) -> Result<(), GetRandomFailed> {
    let pooled = PAGE.try_with(|cell| {
        match cell.get_or_init(|| Page::new(true).map(core::cell::RefCell::new)) {
            Some(page) => page.try_borrow_mut().ok().map(|mut page| page.fill(buf)),
            None => None,
        }
    });
    match pooled {
        Ok(Some(result)) => result,
        _ => getrandom::fill(buf).map_err(|_| GetRandomFailed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page behind the tests' draws: its count and pool as they stand.
    fn state(page: &mut Page) -> (usize, [u8; POOL]) {
        let (count, pool) = page.parts();
        (*count, *pool)
    }

    #[test]
    fn draws_take_fresh_bytes_once_and_clear_them() {
        let mut page = Page::new(true).expect("Linux >= 4.14 maps and marks the page");
        let mut a = [0u8; 32];
        page.fill(&mut a).unwrap();
        let (count, pool) = state(&mut page);
        assert_eq!(count, POOL - 32);
        assert!(
            pool[POOL - 32..].iter().all(|&b| b == 0),
            "taken bytes cleared"
        );
        assert_ne!(a, [0; 32]);
        let mut b = [0u8; 32];
        page.fill(&mut b).unwrap();
        assert_ne!(a, b);
        // A draw larger than what is left takes the rest, then refills.
        let mut big = [0u8; POOL];
        page.fill(&mut big).unwrap();
        assert_eq!(state(&mut page).0, POOL - 64);
        assert_ne!(big[..POOL - 64], [0; POOL - 64]);
        assert_ne!(big[POOL - 64..], [0; 64]);
    }

    /// A child's draw after `fork` (sent back through a pipe) and the parent's next draw,
    /// of 32 bytes each, both by `draw`, whose pool the caller has primed.
    fn child_and_parent_draws(mut draw: impl FnMut(&mut [u8]) -> bool) -> ([u8; 32], [u8; 32]) {
        let mut fds = [0i32; 2];
        // SAFETY: `fds` is two writable ints.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child draws (getrandom, copies, no allocation or lock), writes and
        // leaves by `_exit`, never returning into the test harness.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            let mut drawn = [0u8; 32];
            let ok = draw(&mut drawn);
            // SAFETY: the pipe's write end and a 32-byte buffer; `_exit` ends the child.
            unsafe {
                libc::write(fds[1], drawn.as_ptr().cast(), 32);
                libc::_exit(if ok { 0 } else { 1 });
            }
        }
        let mut mine = [0u8; 32];
        assert!(draw(&mut mine));
        let mut theirs = [0u8; 32];
        // SAFETY: the pipe's read end and a 32-byte buffer; the child's pid to reap.
        let (got, status) = unsafe {
            let got = libc::read(fds[0], theirs.as_mut_ptr().cast(), 32);
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            libc::close(fds[0]);
            libc::close(fds[1]);
            (got, status)
        };
        assert_eq!(got, 32);
        assert_eq!(status, 0, "the child drew");
        (theirs, mine)
    }

    /// The child of a `fork` never hands out its parent's pooled bytes: its page is wiped.
    /// Without the mark the same test sees the child draw exactly the parent's next bytes.
    #[test]
    fn a_forked_child_never_draws_its_parents_bytes() {
        for wipe in [true, false] {
            let mut page = Page::new(wipe).unwrap();
            page.fill(&mut [0u8; 8]).unwrap(); // primed: the page holds unused bytes
            let (child, parent) = child_and_parent_draws(|b| page.fill(b).is_ok());
            assert_eq!(child == parent, !wipe, "wipe on fork: {wipe}");
        }
    }

    /// The same through the provider's generator (this thread's page).
    #[test]
    fn os_random_after_fork_differs_from_the_parent() {
        use rustls::crypto::SecureRandom;
        let os = &super::super::OS_RANDOM;
        os.fill(&mut [0u8; 8]).unwrap();
        assert!(
            PAGE.with(|cell| matches!(cell.get(), Some(Some(_)))),
            "pooled"
        );
        let (child, parent) = child_and_parent_draws(|b| os.fill(b).is_ok());
        assert_ne!(child, parent);
    }
}
