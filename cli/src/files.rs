//! Inputs, outputs and the read → transform → write pipeline of the file commands.
//!
//! An output file is written to a temporary file in its directory and renamed over the
//! destination only when the command succeeds: a failed decryption or an interrupted run
//! leaves nothing behind, and `--out` may name the input. Standard output gets the bytes
//! as they are produced. A destination that is not a regular file (a FIFO, a device such as
//! `/dev/null` or `/dev/stdout`) is written through as it is, never replaced; a symbolic
//! link stays a link: the file it points to gets the new contents.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;

use tempfile::NamedTempFile;

use crate::Failure;
use crate::failure::describe_io;
use crate::progress::Progress;

/// The `--in` and `--out` options of the file commands.
#[derive(clap::Args)]
pub struct Io {
    /// Input file (default: standard input).
    #[arg(long = "in", value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Output file (default: standard output); written under a temporary name in its
    /// directory and renamed into place on success (a FIFO or a device is written
    /// through, and a symbolic link keeps pointing where it did).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// An input: a file, or standard input for `None` or `-`.
pub struct Input {
    /// The name used in messages.
    pub name: String,
    /// The bytes.
    pub reader: Box<dyn Read + Send>,
    /// The size, when known (a regular file).
    pub size: Option<u64>,
}

impl Input {
    /// Opens `path` (standard input for `None` or `-`).
    pub fn open(path: Option<&Path>) -> Result<Input, Failure> {
        match path {
            None => Ok(Input::stdin()),
            Some(p) if p == Path::new("-") => Ok(Input::stdin()),
            Some(p) => {
                let name = p.display().to_string();
                let file = File::open(p).map_err(|e| io_failure(&name, &e))?;
                let size = file
                    .metadata()
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len());
                Ok(Input {
                    name,
                    reader: Box::new(file),
                    size,
                })
            }
        }
    }

    fn stdin() -> Input {
        Input {
            name: "standard input".to_owned(),
            reader: Box::new(io::stdin()),
            size: None,
        }
    }

    /// Reads the whole input (for the small inputs of signatures and SM2 encryption).
    pub fn read_all(mut self) -> Result<Vec<u8>, Failure> {
        let mut data = vec![];
        self.reader
            .read_to_end(&mut data)
            .map_err(|e| io_failure(&self.name, &e))?;
        Ok(data)
    }
}

/// Reads a whole file (`-`: standard input), naming it in the error.
pub fn read_path(path: &Path) -> Result<Vec<u8>, Failure> {
    Input::open(Some(path))?.read_all()
}

/// An output: a temporary file renamed into place by [`Output::commit`], or standard
/// output.
pub struct Output {
    /// The name used in messages.
    pub name: String,
    target: Target,
}

enum Target {
    Stdout(io::Stdout),
    File {
        temp: NamedTempFile,
        dest: PathBuf,
    },
    /// A FIFO, a device or another special file, opened and written in place.
    Special(File),
}

impl Output {
    /// An output to `path` (standard output for `None` or `-`).
    pub fn create(path: Option<&Path>) -> Result<Output, Failure> {
        let Some(dest) = path.filter(|p| *p != Path::new("-")) else {
            return Ok(Output {
                name: "standard output".to_owned(),
                target: Target::Stdout(io::stdout()),
            });
        };
        let name = dest.display().to_string();
        let dest = match Destination::of(dest).map_err(|e| io_failure(&name, &e))? {
            Destination::Special => {
                let file = File::options()
                    .write(true)
                    .open(dest)
                    .map_err(|e| io_failure(&name, &e))?;
                return Ok(Output {
                    name,
                    target: Target::Special(file),
                });
            }
            Destination::Regular(dest) => dest,
        };
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let temp = NamedTempFile::new_in(dir).map_err(|e| io_failure(&name, &e))?;
        Ok(Output {
            name,
            target: Target::File { temp, dest },
        })
    }

    /// Whether the bytes go straight to their destination (standard output, a FIFO or a
    /// device) and so cannot be withdrawn on failure.
    pub fn is_stdout(&self) -> bool {
        !matches!(self.target, Target::File { .. })
    }

    /// Where to write.
    pub fn writer(&mut self) -> &mut (dyn Write + Send) {
        match &mut self.target {
            Target::Stdout(out) => out,
            Target::File { temp, .. } => temp.as_file_mut(),
            Target::Special(file) => file,
        }
    }

    /// Writes all of `data`, naming the output in the error.
    pub fn write_all(&mut self, data: &[u8]) -> Result<(), Failure> {
        let result = self.writer().write_all(data);
        result.map_err(|e| self.write_failure(&e))
    }

    fn write_failure(&self, e: &io::Error) -> Failure {
        if matches!(self.target, Target::Stdout(_)) {
            Failure::write(e)
        } else {
            io_failure(&self.name, e)
        }
    }

    /// Finishes: flushes standard output, or renames the temporary file over the
    /// destination. Dropping an output without committing deletes its temporary file.
    pub fn commit(self) -> Result<(), Failure> {
        match self.target {
            Target::Stdout(mut out) => out.flush().map_err(|e| Failure::write(&e)),
            Target::File { temp, dest } => {
                temp.persist(&dest)
                    .map_err(|e| io_failure(&self.name, &e.error))?;
                Ok(())
            }
            Target::Special(mut file) => file.flush().map_err(|e| io_failure(&self.name, &e)),
        }
    }
}

/// Where an output path's bytes end up.
enum Destination {
    /// A regular file (existing or not) at this path, with symbolic links resolved: the
    /// temporary file is renamed over it, and a link to it stays a link.
    Regular(PathBuf),
    /// A FIFO, a device or another special file (through links too): written in place.
    Special,
}

impl Destination {
    fn of(path: &Path) -> io::Result<Destination> {
        // First what the kernel finds at the end of the path: it follows the "magic" links
        // of /proc (`/dev/stdout` → `/proc/self/fd/1` → `pipe:[N]`), which name no file a
        // walk by hand could reach.
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "is a directory",
                ));
            }
            Ok(meta) if !meta.is_file() => return Ok(Destination::Special),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let mut path = path.to_owned();
        // A bounded walk down a chain of links (a loop ends as the system's ELOOP would).
        for _ in 0..40 {
            // A descriptor's link (`/dev/stdout` redirected to a file): write through the
            // descriptor, as the shell that opened it expects, rather than replace its file.
            if path.starts_with("/proc") || path.starts_with("/dev/fd") {
                return Ok(Destination::Special);
            }
            let meta = match std::fs::symlink_metadata(&path) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Ok(Destination::Regular(path));
                }
                other => other?,
            };
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
                continue;
            }
            return Ok(if meta.is_file() {
                Destination::Regular(path)
            } else {
                Destination::Special
            });
        }
        Err(io::Error::other("too many levels of symbolic links"))
    }
}

/// `NAME: cause`.
pub fn io_failure(name: &str, e: &io::Error) -> Failure {
    Failure::new(format!("{name}: {}", describe_io(e)))
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub fn read_full(input: &mut (impl Read + ?Sized), buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads `input` into buffers taken from `take` (stopping when it has none), sending
/// each to `filled`: `cap` bytes each, the last shorter (possibly empty), or the error
/// that ended the reading. Stops early when the receiver is gone. The read-ahead side of
/// [`pipeline`] and of `sm3sum`'s streaming.
pub fn read_ahead(
    input: &mut (impl Read + ?Sized),
    cap: usize,
    mut take: impl FnMut() -> Option<Vec<u8>>,
    filled: &mpsc::SyncSender<io::Result<Vec<u8>>>,
) {
    while let Some(mut buf) = take() {
        buf.resize(cap, 0);
        let read = read_full(input, &mut buf).map(|n| {
            buf.truncate(n);
            buf
        });
        let last = !matches!(&read, Ok(b) if b.len() == cap);
        if filled.send(read).is_err() || last {
            break;
        }
    }
}

/// Transforms `input` into `output` buffer by buffer, with reading and writing on their
/// own threads so both overlap the transform.
///
/// The input arrives in buffers of `cap` bytes; the last is shorter (possibly empty).
/// `transform(data, last, out)` turns one buffer into output bytes in `out` (cleared
/// before each call; swapping `data` into it is how an in-place transform hands over its
/// result); `last` is true for the final buffer that holds data, or for the only buffer
/// of an empty input. An input ending exactly on a buffer boundary is seen one buffer
/// ahead, so `last` is known before its buffer is transformed.
pub fn pipeline<F>(
    input: Input,
    output: &mut Output,
    cap: usize,
    progress: &Progress,
    mut transform: F,
) -> Result<(), Failure>
where
    F: FnMut(&mut Vec<u8>, bool, &mut Vec<u8>) -> Result<(), Failure>,
{
    let Input {
        name: in_name,
        reader: mut input,
        ..
    } = input;
    let (filled_tx, filled_rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(2);
    let (done_tx, done_rx) = mpsc::sync_channel::<Vec<u8>>(2);
    let (free_tx, free_rx) = mpsc::channel::<Vec<u8>>();
    let free_rx = std::sync::Mutex::new(free_rx);
    let take_free = || {
        free_rx
            .lock()
            .ok()
            .and_then(|rx| rx.try_recv().ok())
            .unwrap_or_default()
    };
    let out_name = output.name.clone();
    let writer = output.writer();
    thread::scope(|scope| {
        let reader_free = &take_free;
        scope.spawn(move || read_ahead(&mut input, cap, || Some(reader_free()), &filled_tx));
        let writer_free = free_tx.clone();
        let written = scope.spawn(move || -> io::Result<()> {
            for buf in done_rx {
                writer.write_all(&buf)?;
                // The pool outlives this thread; a failed send only drops the buffer.
                let _ = writer_free.send(buf);
            }
            writer.flush()
        });
        let transformed = (|| -> Result<(), Failure> {
            let read_failure = |e: io::Error| io_failure(&in_name, &e);
            let mut current = filled_rx.recv().map_err(|_| reader_gone(&in_name))?;
            loop {
                let mut data = current.map_err(read_failure)?;
                let (last, next) = if data.len() < cap {
                    (true, None)
                } else {
                    let next = filled_rx
                        .recv()
                        .map_err(|_| reader_gone(&in_name))?
                        .map_err(read_failure)?;
                    (next.is_empty(), Some(next))
                };
                let mut out = take_free();
                out.clear();
                progress.add(data.len() as u64);
                transform(&mut data, last, &mut out)?;
                // The pool outlives this loop; a failed send only drops the buffer.
                let _ = free_tx.send(data);
                if done_tx.send(out).is_err() {
                    // The writer stopped on an error, which it returns below.
                    return Ok(());
                }
                match next {
                    Some(next) if !last => current = Ok(next),
                    _ => return Ok(()),
                }
            }
        })();
        drop(done_tx);
        drop(filled_rx);
        let written = written
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
        transformed?;
        written.map_err(|e| {
            if out_name == "standard output" {
                Failure::write(&e)
            } else {
                io_failure(&out_name, &e)
            }
        })
    })
}

fn reader_gone(name: &str) -> Failure {
    Failure::new(format!("{name}: the reading thread stopped"))
}
