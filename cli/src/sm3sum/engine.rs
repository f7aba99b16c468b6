//! Hashing many inputs at once, results in the callers' order.
//!
//! Worker threads take batches of consecutive inputs. A batch's small files (up to
//! [`SMALL`] bytes: one `open`, two `read`s, one `close` each) are hashed together in the
//! SIMD lanes of `Sm3::digest_many_into`; a bigger file is streamed through one `Sm3`, its
//! reads running ahead on a second thread so reading and hashing overlap. Results come
//! back to the calling thread, which emits them in input order.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

use shangmi_sm3::{Digest, Sm3};

use crate::Failure;
use crate::files::{read_ahead, read_full};
use crate::progress::Progress;

/// Files up to this size are read whole and hashed in the multi-buffer lanes.
const SMALL: usize = 128 * 1024;
/// Inputs per batch: the 16 lanes four times over (fewer hand-offs between threads).
const BATCH: usize = 64;
/// Read size when streaming a big input.
const CHUNK: usize = 256 * 1024;
/// Buffers in flight between the read-ahead thread and the hasher.
const BUFFERS: usize = 3;

/// An SM3 digest.
pub type Digest32 = [u8; 32];

/// Hashes every input (`-` is standard input) on up to `threads` threads and calls `emit`
/// with each result in input order. Stops early (and returns its error) when `emit` fails.
pub fn hash_in_order<F>(
    inputs: &[PathBuf],
    threads: usize,
    progress: &Progress,
    mut emit: F,
) -> Result<(), Failure>
where
    F: FnMut(usize, io::Result<Digest32>) -> Result<(), Failure>,
{
    let batches = inputs.len().div_ceil(BATCH);
    let threads = threads.clamp(1, batches.max(1));
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Vec<io::Result<Digest32>>)>();
        for _ in 0..threads {
            let (tx, next, stop) = (tx.clone(), &next, &stop);
            scope.spawn(move || {
                let mut worker = Worker::new();
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= batches || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let batch = &inputs[b * BATCH..inputs.len().min((b + 1) * BATCH)];
                    if tx.send((b, worker.batch(batch, progress))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut expected = 0;
        for (b, results) in rx {
            pending.insert(b, results);
            while let Some(results) = pending.remove(&expected) {
                for (i, result) in results.into_iter().enumerate() {
                    if let Err(e) = emit(expected * BATCH + i, result) {
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
                expected += 1;
            }
        }
        Ok(())
    })
}

/// One thread's reusable buffers.
struct Worker {
    /// Where each input's first bytes are read.
    scratch: Vec<u8>,
    /// The batch's small inputs, back to back.
    arena: Vec<u8>,
}

impl Worker {
    fn new() -> Worker {
        Worker {
            scratch: vec![0; SMALL],
            arena: Vec::with_capacity(BATCH * 8192),
        }
    }

    /// The digests of one batch, in order.
    fn batch(&mut self, inputs: &[PathBuf], progress: &Progress) -> Vec<io::Result<Digest32>> {
        let mut results: Vec<io::Result<Digest32>> = Vec::with_capacity(inputs.len());
        // (index into `results`, range in `arena`) of the inputs read whole.
        let mut small = Vec::with_capacity(inputs.len());
        self.arena.clear();
        for (i, path) in inputs.iter().enumerate() {
            match self.read_or_hash(path, progress) {
                Ok(Read1::Whole(n)) => {
                    let start = self.arena.len();
                    self.arena.extend_from_slice(&self.scratch[..n]);
                    small.push((i, start..start + n));
                    results.push(Ok([0; 32]));
                }
                Ok(Read1::Hashed(digest)) => results.push(Ok(digest)),
                Err(e) => results.push(Err(e)),
            }
        }
        let msgs: Vec<&[u8]> = small.iter().map(|(_, r)| &self.arena[r.clone()]).collect();
        let mut digests = vec![[0u8; 32]; msgs.len()];
        Sm3::digest_many_into(&msgs, &mut digests);
        for ((i, _), digest) in small.iter().zip(digests) {
            results[*i] = Ok(digest);
        }
        results
    }

    /// Reads a small input into `scratch`, or hashes a big one to the end.
    fn read_or_hash(&mut self, path: &Path, progress: &Progress) -> io::Result<Read1> {
        let mut input: Box<dyn Read + Send> = if path == Path::new("-") {
            Box::new(io::stdin())
        } else {
            Box::new(File::open(path)?)
        };
        let n = read_full(&mut input, &mut self.scratch)?;
        progress.add(n as u64);
        if n < self.scratch.len() {
            return Ok(Read1::Whole(n));
        }
        let mut hasher = Sm3::new();
        hasher.update(&self.scratch);
        stream(input, &mut hasher, progress)?;
        Ok(Read1::Hashed(hasher.finalize().into()))
    }
}

/// What reading an input's first bytes gave.
enum Read1 {
    /// The whole input, this many bytes of `scratch`.
    Whole(usize),
    /// A big input, already hashed.
    Hashed(Digest32),
}

/// Feeds the rest of `input` to `hasher`, reading ahead on a second thread.
fn stream(
    mut input: Box<dyn Read + Send>,
    hasher: &mut Sm3,
    progress: &Progress,
) -> io::Result<()> {
    let (full_tx, full_rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(BUFFERS);
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
    for _ in 0..BUFFERS {
        // The receiver is alive here; a failed send cannot happen.
        let _ = empty_tx.send(vec![0; CHUNK]);
    }
    thread::scope(|scope| {
        scope.spawn(move || read_ahead(&mut input, CHUNK, || empty_rx.recv().ok(), &full_tx));
        // The channel ends move into the call and drop on its return, which stops the
        // reader before the scope waits for it.
        hash_buffers(full_rx, empty_tx, hasher, progress)
    })
}

/// The hashing side of [`stream`]: hashes buffers as they come, hands them back to refill.
fn hash_buffers(
    full: mpsc::Receiver<io::Result<Vec<u8>>>,
    empty: mpsc::Sender<Vec<u8>>,
    hasher: &mut Sm3,
    progress: &Progress,
) -> io::Result<()> {
    for read in full {
        let buf = read?;
        hasher.update(&buf);
        progress.add(buf.len() as u64);
        if buf.len() < CHUNK {
            break;
        }
        // The reader may have stopped already (it ends on a short read); ignore that.
        let _ = empty.send(buf);
    }
    Ok(())
}
