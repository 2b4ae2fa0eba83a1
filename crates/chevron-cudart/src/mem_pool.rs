//! Stream-ordered allocation and memory pools: `cudaMallocAsync`, `cudaMallocFromPoolAsync`,
//! `cudaFreeAsync`, `cudaDeviceGetDefaultMemPool`, `cudaDeviceGetMemPool`,
//! `cudaDeviceSetMemPool`, `cudaMemPoolCreate`, `cudaMemPoolDestroy`,
//! `cudaMemPoolSetAttribute`, `cudaMemPoolGetAttribute` and `cudaMemPoolTrimTo`.
//!
//! A pool holds device buffers: those in use and those freed and kept for reuse. A new
//! buffer is allocated in the stream's order (`Buffer::new_in_stream_order`: on GPUs the
//! driver's `cuMemAllocAsync`, which unlike `cuMemAlloc` holds no other stream's work back),
//! usable by the stream's later work as CUDA promises; a free
//! returns the buffer to the pool once the stream's earlier work is done (its token), and a
//! later allocation reuses a kept buffer only after that. Kept buffers beyond the pool's
//! release threshold (`cudaMemPoolAttrReleaseThreshold`, 0 by default) go back to the device at
//! the free; `cudaMemPoolTrimTo` releases kept buffers down to a size. The attributes report
//! the bytes in use and held (in use plus kept), and their highs.
//!
//! Reuse follows CUDA's policies (`cudaMemPoolReuse*`, all on by default): a buffer freed on
//! the allocating stream is reused at once (stream order makes it safe); with
//! `cudaMemPoolReuseAllowInternalDependencies` any kept buffer is, the allocating stream made
//! to wait for the free (as a GPU's pool inserts that dependency); with only
//! `cudaMemPoolReuseAllowOpportunistic`, a buffer whose free has completed. A stream that
//! waited for an event after the free is not told apart (`…FollowEventDependencies` reuses
//! through the internal dependency or once the free is done).
//!
//! On a capturing stream an allocation or free is recorded instead, as a graph memory node
//! (`graphs::memory_nodes`), through `crate::capturing`.

use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

use chevron::{Buffer, Token};

use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::{adopt, release, store};
use crate::state::{self, lock};

/// A buffer freed into a pool: free once `token` is done.
struct Kept {
    buffer: Buffer<u8>,
    token: Token,
    /// The `cudaStream_t` it was freed on, as given (0 and `cudaStreamLegacy` alike).
    stream: usize,
}

/// A memory pool (`cudaMemPool_t`).
struct Pool {
    ordinal: usize,
    release_threshold: u64,
    /// Live allocations: address and size asked for.
    used: HashMap<u64, u64>,
    kept: Vec<Kept>,
    used_high: u64,
    reserved_high: u64,
    /// One of the devices' default pools (never destroyed).
    default: bool,
    /// `cudaMemPoolReuseAllowOpportunistic` and `cudaMemPoolReuseAllowInternalDependencies`
    /// (`…FollowEventDependencies` is kept in `reuse_follow_events`).
    reuse_opportunistic: bool,
    reuse_internal: bool,
    reuse_follow_events: bool,
}

impl Pool {
    fn used_bytes(&self) -> u64 {
        self.used.values().sum()
    }
    fn reserved_bytes(&self) -> u64 {
        self.used_bytes() + self.kept.iter().map(|k| k.buffer.len() as u64).sum::<u64>()
    }
    /// Whether `kept` may serve an allocation on `stream` (the stream then waits for its
    /// free, at no cost when it is the same stream or done).
    fn may_reuse(&self, kept: &Kept, stream: usize) -> bool {
        kept.stream == stream
            || self.reuse_internal
            || (self.reuse_opportunistic && kept.token.is_done().unwrap_or(false))
    }
    fn note_highs(&mut self) {
        self.used_high = self.used_high.max(self.used_bytes());
        self.reserved_high = self.reserved_high.max(self.reserved_bytes());
    }
    /// Releases kept buffers, oldest first, until at most `bytes` are held (never below the
    /// bytes in use).
    fn trim_to(&mut self, bytes: u64) {
        while self.reserved_bytes() > bytes && !self.kept.is_empty() {
            self.kept.remove(0);
        }
    }
}

#[derive(Default)]
struct Pools {
    pools: HashMap<usize, Pool>,
    /// Each device's current pool, by ordinal.
    current: HashMap<usize, usize>,
    /// The pool of each live stream-ordered allocation.
    owners: HashMap<u64, usize>,
    next: usize,
}

static POOLS: Mutex<Option<Pools>> = Mutex::new(None);

fn with_pools<T>(f: impl FnOnce(&mut Pools) -> CudaResult<T>) -> CudaResult<T> {
    f(lock(&POOLS).get_or_insert_with(Pools::default))
}

impl Pools {
    fn create(&mut self, ordinal: usize, default: bool) -> usize {
        self.next += 1;
        let handle = 0x6d70_0000 + self.next * 16;
        let pool = Pool {
            ordinal,
            release_threshold: 0,
            used: HashMap::new(),
            kept: Vec::new(),
            used_high: 0,
            reserved_high: 0,
            default,
            reuse_opportunistic: true,
            reuse_internal: true,
            reuse_follow_events: true,
        };
        self.pools.insert(handle, pool);
        handle
    }
    fn default_pool(&mut self, ordinal: usize) -> usize {
        if let Some((&handle, _)) = self
            .pools
            .iter()
            .find(|(_, p)| p.default && p.ordinal == ordinal)
        {
            return handle;
        }
        self.create(ordinal, true)
    }
    fn current_pool(&mut self, ordinal: usize) -> usize {
        match self.current.get(&ordinal) {
            Some(&pool) => pool,
            None => self.default_pool(ordinal),
        }
    }
    fn pool(&mut self, pool: *mut c_void) -> CudaResult<&mut Pool> {
        self.pools.get_mut(&(pool as usize)).ok_or_else(|| {
            CudaError::new(
                INVALID_VALUE,
                format!("{pool:p} is not a live cudaMemPool_t"),
            )
        })
    }
}

pub(crate) fn device_ordinal(device: c_int) -> CudaResult<usize> {
    let count = state::devices()?.len();
    usize::try_from(device)
        .ok()
        .filter(|&d| d < count)
        .ok_or_else(|| CudaError::new(crate::errors::INVALID_DEVICE, format!("device {device}")))
}

/// Allocates `size` bytes from `pool` in the order of `stream`.
fn allocate(
    out: *mut *mut c_void,
    size: usize,
    pool: Option<usize>,
    stream: *mut c_void,
) -> CudaResult {
    if out.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "devPtr is NULL"));
    }
    if size == 0 {
        return Err(CudaError::new(INVALID_VALUE, "size is 0"));
    }
    if let Some(captured) = crate::capturing::alloc(stream, size) {
        return store(out, captured? as *mut c_void, "devPtr");
    }
    let (ordinal, submit) = state::submit_stream(stream)?;
    let key = stream_key(stream);
    with_pools(|pools| {
        let handle = match pool {
            Some(handle) => handle,
            None => pools.current_pool(ordinal),
        };
        let pool = pools.pool(handle as *mut c_void)?;
        let reusable = pool
            .kept
            .iter()
            .position(|k| k.buffer.len() >= size && pool.may_reuse(k, key));
        let buffer = match reusable {
            Some(index) => {
                let kept = pool.kept.remove(index);
                submit.wait_for(&[&kept.token])?;
                kept.buffer
            }
            // In the stream's order where the pool is the stream's device's: on a GPU a plain
            // allocation would hold every other stream's later work behind their earlier work
            // (CUDA's implicit synchronization), which cudaMallocAsync never does.
            None if ordinal == pool.ordinal => Buffer::<u8>::new_in_stream_order(&submit, size)?,
            None => Buffer::<u8>::new(&state::device(pool.ordinal)?.device, size)?,
        };
        let address = adopt(buffer, size, "cudaMallocAsync");
        pool.used.insert(address, size as u64);
        pool.note_highs();
        pools.owners.insert(address, handle);
        store(out, address as *mut c_void, "devPtr")
    })
}

/// A stream handle as pools compare them: the legacy default stream's two names alike.
fn stream_key(stream: *mut c_void) -> usize {
    match stream as usize {
        0 => state::STREAM_LEGACY,
        key => key,
    }
}

/// Allocates from the current pool of the stream's device, in stream order.
#[no_mangle]
pub extern "C" fn cudaMallocAsync(
    ptr: *mut *mut c_void,
    size: usize,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaMallocAsync", || allocate(ptr, size, None, stream))
}

/// Allocates from `pool`, in stream order.
#[no_mangle]
pub extern "C" fn cudaMallocFromPoolAsync(
    ptr: *mut *mut c_void,
    size: usize,
    pool: *mut c_void,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaMallocFromPoolAsync", || {
        with_pools(|pools| pools.pool(pool).map(drop))?;
        allocate(ptr, size, Some(pool as usize), stream)
    })
}

/// Returns `ptr` to its pool after the work submitted to `stream` so far.
#[no_mangle]
pub extern "C" fn cudaFreeAsync(ptr: *mut c_void, stream: *mut c_void) -> cudaError_t {
    guard("cudaFreeAsync", || {
        if ptr.is_null() {
            return Ok(());
        }
        if let Some(captured) = crate::capturing::free(stream, ptr as u64) {
            return captured;
        }
        let raw = stream;
        let (_, stream) = state::submit_stream(stream)?;
        with_pools(|pools| {
            let handle = pools.owners.remove(&(ptr as u64)).ok_or_else(|| {
                CudaError::new(
                    INVALID_VALUE,
                    format!("{ptr:p} was not allocated by cudaMallocAsync"),
                )
            })?;
            let pool = pools.pool(handle as *mut c_void)?;
            pool.used.remove(&(ptr as u64));
            if let Some(buffer) = release(ptr as u64) {
                let token = stream.token();
                let stream = stream_key(raw);
                pool.kept.push(Kept {
                    buffer,
                    token,
                    stream,
                });
            }
            let threshold = pool.release_threshold;
            pool.trim_to(threshold);
            pool.note_highs();
            Ok(())
        })
    })
}

/// Writes the default pool of `device`.
#[no_mangle]
pub extern "C" fn cudaDeviceGetDefaultMemPool(
    pool: *mut *mut c_void,
    device: c_int,
) -> cudaError_t {
    guard("cudaDeviceGetDefaultMemPool", || {
        let ordinal = device_ordinal(device)?;
        let handle = with_pools(|pools| Ok(pools.default_pool(ordinal)))?;
        store(pool, handle as *mut c_void, "memPool")
    })
}

/// Writes the current pool of `device` (what `cudaMallocAsync` allocates from).
#[no_mangle]
pub extern "C" fn cudaDeviceGetMemPool(pool: *mut *mut c_void, device: c_int) -> cudaError_t {
    guard("cudaDeviceGetMemPool", || {
        let ordinal = device_ordinal(device)?;
        let handle = with_pools(|pools| Ok(pools.current_pool(ordinal)))?;
        store(pool, handle as *mut c_void, "memPool")
    })
}

/// Makes `pool` (a pool of `device`) the device's current pool.
#[no_mangle]
pub extern "C" fn cudaDeviceSetMemPool(device: c_int, pool: *mut c_void) -> cudaError_t {
    guard("cudaDeviceSetMemPool", || {
        let ordinal = device_ordinal(device)?;
        with_pools(|pools| {
            if pools.pool(pool)?.ordinal != ordinal {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    "the pool belongs to another device",
                ));
            }
            pools.current.insert(ordinal, pool as usize);
            Ok(())
        })
    })
}

/// The fields of `cudaMemPoolProps` chevron reads (the rest is not looked at).
#[repr(C)]
struct PoolPropsHead {
    alloc_type: c_int,
    handle_types: c_int,
    location_type: c_int,
    location_id: c_int,
}

/// Creates a pool of device memory (`cudaMemAllocationTypePinned` on a device location).
///
/// # Safety
/// `props` is NULL or points to a `cudaMemPoolProps`.
#[no_mangle]
pub unsafe extern "C" fn cudaMemPoolCreate(
    pool: *mut *mut c_void,
    props: *const c_void,
) -> cudaError_t {
    guard("cudaMemPoolCreate", || {
        // SAFETY: NULL or a cudaMemPoolProps, which starts with these four ints (caller).
        let props = unsafe { props.cast::<PoolPropsHead>().as_ref() }
            .ok_or_else(|| CudaError::new(INVALID_VALUE, "poolProps is NULL"))?;
        if props.alloc_type != 1 || props.location_type != 1 || props.handle_types != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                "pools of pinned device memory without export handles are provided",
            ));
        }
        let ordinal = device_ordinal(props.location_id)?;
        if pool.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "memPool is NULL"));
        }
        let handle = with_pools(|pools| Ok(pools.create(ordinal, false)))?;
        store(pool, handle as *mut c_void, "memPool")
    })
}

/// Destroys a pool made by `cudaMemPoolCreate` (its kept memory goes back to the device).
#[no_mangle]
pub extern "C" fn cudaMemPoolDestroy(pool: *mut c_void) -> cudaError_t {
    guard("cudaMemPoolDestroy", || {
        with_pools(|pools| {
            if pools.pool(pool)?.default {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    "a device's default pool stays",
                ));
            }
            pools.pools.remove(&(pool as usize));
            pools.current.retain(|_, p| *p != pool as usize);
            pools.owners.retain(|_, p| *p != pool as usize);
            Ok(())
        })
    })
}

/// `cudaMemPoolAttr` values.
const REUSE_FOLLOW_EVENTS: c_int = 1;
const REUSE_OPPORTUNISTIC: c_int = 2;
const REUSE_INTERNAL: c_int = 3;
const RELEASE_THRESHOLD: c_int = 4;
const RESERVED_CURRENT: c_int = 5;
const RESERVED_HIGH: c_int = 6;
const USED_CURRENT: c_int = 7;
const USED_HIGH: c_int = 8;

/// Sets a pool attribute: the release threshold, a reuse policy (see the module's note), or a
/// high to 0 (resets it to the current value).
///
/// # Safety
/// `value` is NULL or points to the attribute's type (`int` or `cuuint64_t`).
#[no_mangle]
pub unsafe extern "C" fn cudaMemPoolSetAttribute(
    pool: *mut c_void,
    attr: c_int,
    value: *mut c_void,
) -> cudaError_t {
    guard("cudaMemPoolSetAttribute", || {
        if value.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "value is NULL"));
        }
        with_pools(|pools| {
            let pool = pools.pool(pool)?;
            // SAFETY: non-NULL, of the attribute's type (caller).
            let wide = || unsafe { value.cast::<u64>().read_unaligned() };
            // SAFETY: non-NULL, an `int` for the reuse policies (caller).
            let flag = || unsafe { value.cast::<c_int>().read_unaligned() } != 0;
            match attr {
                REUSE_FOLLOW_EVENTS => {
                    pool.reuse_follow_events = flag();
                    Ok(())
                }
                REUSE_OPPORTUNISTIC => {
                    pool.reuse_opportunistic = flag();
                    Ok(())
                }
                REUSE_INTERNAL => {
                    pool.reuse_internal = flag();
                    Ok(())
                }
                RELEASE_THRESHOLD => {
                    pool.release_threshold = wide();
                    Ok(())
                }
                RESERVED_HIGH | USED_HIGH if wide() == 0 => {
                    if attr == USED_HIGH {
                        pool.used_high = pool.used_bytes();
                    } else {
                        pool.reserved_high = pool.reserved_bytes();
                    }
                    Ok(())
                }
                _ => Err(CudaError::new(
                    INVALID_VALUE,
                    format!("cudaMemPoolAttr {attr} cannot be set to this value"),
                )),
            }
        })
    })
}

/// Reads a pool attribute.
///
/// # Safety
/// `value` is NULL or valid for a write of the attribute's type (`int` or `cuuint64_t`).
#[no_mangle]
pub unsafe extern "C" fn cudaMemPoolGetAttribute(
    pool: *mut c_void,
    attr: c_int,
    value: *mut c_void,
) -> cudaError_t {
    guard("cudaMemPoolGetAttribute", || {
        with_pools(|pools| {
            let pool = pools.pool(pool)?;
            let wide = match attr {
                REUSE_FOLLOW_EVENTS | REUSE_OPPORTUNISTIC | REUSE_INTERNAL => {
                    let on = match attr {
                        REUSE_FOLLOW_EVENTS => pool.reuse_follow_events,
                        REUSE_OPPORTUNISTIC => pool.reuse_opportunistic,
                        _ => pool.reuse_internal,
                    };
                    return store(value.cast::<c_int>(), c_int::from(on), "value");
                }
                RELEASE_THRESHOLD => pool.release_threshold,
                RESERVED_CURRENT => pool.reserved_bytes(),
                RESERVED_HIGH => pool.reserved_high,
                USED_CURRENT => pool.used_bytes(),
                USED_HIGH => pool.used_high,
                _ => {
                    return Err(CudaError::new(
                        INVALID_VALUE,
                        format!("{attr} is not a cudaMemPoolAttr"),
                    ))
                }
            };
            store(value.cast::<u64>(), wide, "value")
        })
    })
}

/// Releases kept memory until the pool holds at most `min_bytes` (memory in use stays).
#[no_mangle]
pub extern "C" fn cudaMemPoolTrimTo(pool: *mut c_void, min_bytes: usize) -> cudaError_t {
    guard("cudaMemPoolTrimTo", || {
        with_pools(|pools| {
            pools.pool(pool)?.trim_to(min_bytes as u64);
            Ok(())
        })
    })
}
