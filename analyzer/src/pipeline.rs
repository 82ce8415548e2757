//! One crate analysed with its files spread over threads.
//!
//! syn's trees cannot leave the thread that parsed them (proc-macro2's tokens are
//! `!Send`, and with span locations a span's byte offsets are kept by that thread), so
//! each worker keeps the trees of the files it parsed and does everything that reads
//! them: loading (a shared queue of module files, fed by the `mod` declarations each
//! worker finds), indexing its files, and lowering its functions when asked. The
//! calling thread puts the files in rustc's order, joins the index and runs the
//! bottom-up schedule of [`crate::program`], sending each batch of functions to the
//! workers that own them. Files, items and functions are numbered in the crate's file
//! order, never in the order workers finished, so the result is the same on any number
//! of threads as on one.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::index::{FileItems, FnAst, ItemIndex};
use crate::ir::FnIr;
use crate::lower::{lower_fn, LowerCtx};
use crate::program::{analyze_index, read, AnalysisOptions, CrateIr, LowerFns, SharedSummaries};
use crate::source::{FileId, SourceError, SourceFile, SourceMap};
use crate::syntax::{
    load_pending, mount_files, remount, Claims, FileRecord, ParsedFile, PendingFile,
};
use crate::threads::WORKER_STACK_BYTES;

/// A crate to analyse from its root file.
pub struct CrateRoot<'a> {
    pub name: &'a str,
    pub root: &'a Path,
    pub edition: crate::syntax::Edition,
    /// The name shown for a path.
    pub display: &'a (dyn Fn(&Path) -> String + Sync),
    /// Whether a file is skipped (with its child modules).
    pub excluded: &'a (dyn Fn(&Path) -> bool + Sync),
}

/// What [`analyze_files`] found.
pub struct Analyzed<T> {
    pub sources: SourceMap,
    pub ir: CrateIr,
    /// Files that could not be read or parsed, missing module files.
    pub load_errors: Vec<SourceError>,
    /// `per_file` of every parsed file, in file order.
    pub per_file: Vec<T>,
    /// Parsed files and their lines.
    pub files: usize,
    pub lines: usize,
    /// Wall time of loading (reading, parsing) and of the analysis after it.
    pub parse_time: Duration,
    pub lower_time: Duration,
}

/// A panic on a worker, raised again on the calling thread with the file the worker
/// was reading, indexing or lowering a function of.
#[derive(Debug)]
pub struct InternalError {
    pub path: Option<PathBuf>,
    pub message: String,
}

impl InternalError {
    /// The message of any panic payload.
    pub fn message_of(payload: &(dyn std::any::Any + Send)) -> String {
        if let Some(e) = payload.downcast_ref::<InternalError>() {
            return e.message.clone();
        }
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    }
}

/// Loads, parses, indexes and lowers one crate on `threads` worker threads, running `per_file` on every parsed file beside its tree (the
/// driver reads its suppressions there). A panic on a worker is raised again on the
/// calling thread, as an [`InternalError`] naming the file.
pub fn analyze_files<T: Send>(
    krate: &CrateRoot,
    options: &AnalysisOptions,
    threads: usize,
    per_file: &(dyn Fn(&SourceFile, &syn::File) -> T + Sync),
) -> Analyzed<T> {
    // Even one worker is a thread of its own: the calling thread leads, and a failure
    // names its file the same way on any number of threads.
    let threads = threads.max(1);
    let started = Instant::now();
    let queue = Queue::new(PendingFile::root(krate.root, krate.edition, &options.cfg));
    let (replies, from_workers) = channel::<Reply<T>>();
    std::thread::scope(|scope| {
        let mut workers: Vec<Sender<Command>> = Vec::new();
        for id in 0..threads {
            let (commands, inbox) = channel();
            let replies = replies.clone();
            let queue = &queue;
            let spawned = std::thread::Builder::new()
                .name(format!("tensor-lint-worker-{id}"))
                .stack_size(WORKER_STACK_BYTES)
                .spawn_scoped(scope, move || {
                    // A panic is sent back before the thread ends, so that the caller
                    // never waits for a reply that will not come.
                    let current = RefCell::new(None);
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        Worker {
                            id,
                            inbox,
                            replies: &replies,
                            current: &current,
                        }
                        .run(queue, krate, options, per_file)
                    }));
                    if let Err(payload) = outcome {
                        queue.abandon();
                        let error = InternalError {
                            path: current.take(),
                            message: InternalError::message_of(payload.as_ref()),
                        };
                        let _ = replies.send(Reply::Panicked(Box::new(error)));
                    }
                });
            match spawned {
                Ok(_) => workers.push(commands),
                Err(_) => break,
            }
        }
        drop(replies);
        if workers.is_empty() {
            return analyze_here(krate, options, per_file);
        }
        let mut leader = Leader {
            workers,
            inbox: from_workers,
        };
        let result = leader.lead(&queue, started, options, krate.name);
        for worker in &leader.workers {
            let _ = worker.send(Command::Stop);
        }
        match result {
            Ok(analyzed) => analyzed,
            Err(payload) => std::panic::resume_unwind(payload),
        }
    })
}

/// Everything on the calling thread, when no worker thread can be started.
fn analyze_here<T>(
    krate: &CrateRoot,
    options: &AnalysisOptions,
    per_file: &(dyn Fn(&SourceFile, &syn::File) -> T + Sync),
) -> Analyzed<T> {
    let started = Instant::now();
    let mut sources = SourceMap::new();
    let (parsed, load_errors) = crate::syntax::load_crate(
        krate.name,
        krate.root,
        krate.edition,
        &options.cfg,
        &mut sources,
        krate.display,
        krate.excluded,
    );
    let parse_time = started.elapsed();
    let started = Instant::now();
    let per_file = parsed
        .files
        .iter()
        .map(|p| per_file(sources.get(p.file), &p.ast))
        .collect();
    let ir = crate::program::analyze_crate(&parsed, &sources, options);
    Analyzed {
        files: parsed.files.len(),
        lines: line_count(&sources, parsed.files.iter().map(|f| f.file)),
        sources,
        ir,
        load_errors,
        per_file,
        parse_time,
        lower_time: started.elapsed(),
    }
}

/// Lines of the parsed files `files`.
fn line_count(sources: &SourceMap, files: impl Iterator<Item = FileId>) -> usize {
    files.map(|f| sources.get(f).line_count()).sum()
}

type Panic = Box<dyn std::any::Any + Send>;

/// The module files still to load, shared by the workers while they load.
struct Queue {
    state: Mutex<QueueState>,
    changed: Condvar,
}

struct QueueState {
    pending: Vec<PendingFile>,
    /// Workers loading a file now, which may add more.
    busy: usize,
    /// Provisional ids handed out.
    next_id: u32,
    abandoned: bool,
    claims: Claims,
}

impl Queue {
    fn new(root: PendingFile) -> Queue {
        Queue {
            state: Mutex::new(QueueState {
                pending: vec![root],
                busy: 0,
                next_id: 0,
                abandoned: false,
                claims: Claims::default(),
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next file to load with its provisional id, or `None` once every file is
    /// loaded: nothing is pending and nobody is loading.
    fn take(&self) -> Option<(PendingFile, FileId)> {
        let mut state = self.lock();
        loop {
            if state.abandoned {
                return None;
            }
            if let Some(next) = state.pending.pop() {
                state.busy += 1;
                let id = FileId(state.next_id);
                state.next_id += 1;
                return Some((next, id));
            }
            if state.busy == 0 {
                return None;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn done(&self, children: Vec<PendingFile>) {
        let mut state = self.lock();
        state.busy -= 1;
        // Reversed, so that a lone worker loads in source order.
        state.pending.extend(children.into_iter().rev());
        self.changed.notify_all();
    }

    fn claim(&self, canonical: &Path, key: &[u32]) -> bool {
        self.lock().claims.claim(canonical, key)
    }

    fn over_limit_error(&self) -> Option<SourceError> {
        self.lock().claims.over_limit_error()
    }

    /// A worker failed: the others stop waiting.
    fn abandon(&self) {
        self.lock().abandoned = true;
        self.changed.notify_all();
    }
}

enum Command {
    /// Every file is loaded: these are the final ids by provisional id.
    Mount {
        sources: Arc<SourceMap>,
        ids: Arc<Vec<Option<FileId>>>,
    },
    /// The index is joined: the first function index of each parsed file.
    Index {
        index: Arc<ItemIndex>,
        first_fn: Arc<HashMap<FileId, usize>>,
    },
    Lower {
        fns: Vec<usize>,
        summaries: SharedSummaries,
    },
    Stop,
}

enum Reply<T> {
    /// A file loaded with its provisional id.
    Loaded(FileId, FileRecord),
    /// This worker has no file left to load.
    LoadDone,
    Indexed {
        worker: usize,
        file: FileId,
        items: Box<FileItems>,
        extra: T,
    },
    IndexDone,
    Lowered(Vec<(usize, Option<FnIr>)>),
    Panicked(Panic),
}

struct Worker<'r, T> {
    id: usize,
    inbox: Receiver<Command>,
    replies: &'r Sender<Reply<T>>,
    /// The file being worked on, named if this worker fails.
    current: &'r RefCell<Option<PathBuf>>,
}

impl<T> Worker<'_, T> {
    fn send(&self, reply: Reply<T>) {
        let _ = self.replies.send(reply);
    }

    fn working_on(&self, path: &Path) {
        let mut current = self.current.borrow_mut();
        if current.as_deref() != Some(path) {
            *current = Some(path.to_path_buf());
        }
    }

    fn run(
        self,
        queue: &Queue,
        krate: &CrateRoot,
        options: &AnalysisOptions,
        per_file: &(dyn Fn(&SourceFile, &syn::File) -> T + Sync),
    ) {
        let mut parsed: Vec<ParsedFile> = Vec::new();
        while let Some((pending, id)) = queue.take() {
            self.working_on(pending.path());
            let mut claim = |canonical: &Path, key: &[u32]| queue.claim(canonical, key);
            let loaded = load_pending(&pending, id, krate.display, krate.excluded, &mut claim);
            let children = match loaded {
                Some(loaded) => {
                    if let Some(ast) = loaded.ast {
                        parsed.push(ParsedFile {
                            file: id,
                            module_path: pending.module_path,
                            ast,
                        });
                    }
                    self.send(Reply::Loaded(id, loaded.record));
                    loaded.children
                }
                None => Vec::new(),
            };
            queue.done(children);
        }
        self.send(Reply::LoadDone);

        let Ok(Command::Mount { sources, ids }) = self.inbox.recv() else {
            return;
        };
        let parsed = remount(parsed, &ids);
        let mut asts: Vec<(FileId, Vec<FnAst>)> = Vec::new();
        let mut paths: HashMap<FileId, PathBuf> = HashMap::new();
        for file in &parsed {
            let path = &sources.get(file.file).path;
            self.working_on(path);
            paths.insert(file.file, path.clone());
            let (items, file_asts) = FileItems::collect(file);
            let extra = per_file(sources.get(file.file), &file.ast);
            asts.push((file.file, file_asts));
            self.send(Reply::Indexed {
                worker: self.id,
                file: file.file,
                items: Box::new(items),
                extra,
            });
        }
        // The leader takes the source map back once every worker is done with it.
        drop(sources);
        drop(ids);
        self.send(Reply::IndexDone);

        let Ok(Command::Index { index, first_fn }) = self.inbox.recv() else {
            return;
        };
        let mut mine: HashMap<usize, FnAst> = HashMap::new();
        for (file, file_asts) in asts {
            let first = first_fn.get(&file).copied().unwrap_or(0);
            mine.extend(
                file_asts
                    .into_iter()
                    .enumerate()
                    .map(|(k, a)| (first + k, a)),
            );
        }
        while let Ok(Command::Lower { fns, summaries }) = self.inbox.recv() {
            let lowered = {
                let known = read(&summaries);
                let ctx = LowerCtx {
                    index: &index,
                    models: &options.models,
                    cfg: &options.cfg,
                    summaries: &known,
                };
                fns.iter()
                    .map(|&f| {
                        if let Some(path) = index.fn_item(f).and_then(|i| paths.get(&i.file)) {
                            self.working_on(path);
                        }
                        (f, mine.get(&f).and_then(|&ast| lower_fn(&ctx, f, ast)))
                    })
                    .collect()
            };
            self.send(Reply::Lowered(lowered));
        }
        // The trees are dropped here, on the thread that made them.
    }
}

/// The calling thread's side.
struct Leader<T> {
    workers: Vec<Sender<Command>>,
    inbox: Receiver<Reply<T>>,
}

impl<T> Leader<T> {
    fn recv(&self) -> Result<Reply<T>, Panic> {
        match self.inbox.recv() {
            Ok(Reply::Panicked(payload)) => Err(payload),
            Ok(reply) => Ok(reply),
            Err(_) => Err(Box::new("a worker thread ended without answering")),
        }
    }

    fn broadcast(&self, command: impl Fn() -> Command) {
        for worker in &self.workers {
            let _ = worker.send(command());
        }
    }

    fn lead(
        &mut self,
        queue: &Queue,
        started: Instant,
        options: &AnalysisOptions,
        name: &str,
    ) -> Result<Analyzed<T>, Panic> {
        // Loading.
        let mut records: Vec<(FileId, FileRecord)> = Vec::new();
        let mut loading = self.workers.len();
        while loading > 0 {
            match self.recv()? {
                Reply::Loaded(id, record) => records.push((id, record)),
                Reply::LoadDone => loading -= 1,
                _ => {}
            }
        }
        let mut sources = SourceMap::new();
        let (ids, mut load_errors) = mount_files(records, &mut sources);
        load_errors.extend(queue.over_limit_error());
        let parse_time = started.elapsed();

        // Indexing.
        let lowering_started = Instant::now();
        let sources = Arc::new(sources);
        let ids = Arc::new(ids);
        self.broadcast(|| Command::Mount {
            sources: Arc::clone(&sources),
            ids: Arc::clone(&ids),
        });
        let mut parts: Vec<(FileId, usize, FileItems, T)> = Vec::new();
        let mut indexing = self.workers.len();
        while indexing > 0 {
            match self.recv()? {
                Reply::Indexed {
                    worker,
                    file,
                    items,
                    extra,
                } => parts.push((file, worker, *items, extra)),
                Reply::IndexDone => indexing -= 1,
                _ => {}
            }
        }
        parts.sort_by_key(|p| p.0);
        let mut first_fn = HashMap::new();
        let mut owner: Vec<usize> = Vec::new();
        let mut items = Vec::new();
        let mut per_file = Vec::new();
        for (file, worker, part, extra) in parts {
            first_fn.insert(file, owner.len());
            owner.extend(std::iter::repeat_n(worker, part.fn_count()));
            items.push(part);
            per_file.push(extra);
        }
        let files = items.len();
        let index = Arc::new(ItemIndex::from_files(items));
        let first_fn = Arc::new(first_fn);
        self.broadcast(|| Command::Index {
            index: Arc::clone(&index),
            first_fn: Arc::clone(&first_fn),
        });

        // Lowering, on the workers that own each function.
        let mut lowerer = Spread {
            leader: self,
            owner,
            failed: None,
        };
        let threads = lowerer.leader.workers.len();
        let ir = analyze_index(name, &index, options, &mut lowerer, threads);
        if let Some(payload) = lowerer.failed {
            return Err(payload);
        }
        let sources = Arc::try_unwrap(sources).unwrap_or_else(|shared| (*shared).clone());
        let lines = line_count(&sources, first_fn.keys().copied());
        Ok(Analyzed {
            sources,
            ir,
            load_errors,
            per_file,
            files,
            lines,
            parse_time,
            lower_time: lowering_started.elapsed(),
        })
    }
}

/// Sends each function to the worker that parsed it.
struct Spread<'l, T> {
    leader: &'l Leader<T>,
    owner: Vec<usize>,
    /// A worker's panic, raised again once the schedule returns.
    failed: Option<Panic>,
}

impl<T> LowerFns for Spread<'_, T> {
    fn failed(&self) -> bool {
        self.failed.is_some()
    }

    fn lower(&mut self, fns: &[usize], summaries: &SharedSummaries) -> Vec<Option<FnIr>> {
        if fns.is_empty() || self.failed.is_some() {
            return fns.iter().map(|_| None).collect();
        }
        let mut batches: Vec<Vec<usize>> = vec![Vec::new(); self.leader.workers.len()];
        for &f in fns {
            if let Some(&w) = self.owner.get(f) {
                batches[w].push(f);
            }
        }
        let mut waiting = 0;
        for (worker, batch) in self.leader.workers.iter().zip(batches) {
            if !batch.is_empty() {
                waiting += 1;
                let _ = worker.send(Command::Lower {
                    fns: batch,
                    summaries: Arc::clone(summaries),
                });
            }
        }
        let mut lowered: HashMap<usize, Option<FnIr>> = HashMap::new();
        while waiting > 0 {
            match self.leader.recv() {
                Ok(Reply::Lowered(results)) => {
                    waiting -= 1;
                    lowered.extend(results);
                }
                Ok(_) => {}
                Err(payload) => {
                    self.failed = Some(payload);
                    break;
                }
            }
        }
        fns.iter().map(|f| lowered.remove(f).flatten()).collect()
    }
}
