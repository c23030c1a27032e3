//! The particle method for many pairs at once on a GPU (feature `gpu`,
//! wgpu): Algorithm 3 of Krayer et al. (*Intersection Distance Field
//! Collision for GPU*, §4.3).
//!
//! Per frame the host builds every pair's particle set exactly as the CPU
//! method does ([`pair_setup`]: the intersection of the bounding boxes, the
//! per-axis resolution of Algorithm 1, `ε`) and the running particle counts;
//! then one dispatch runs one invocation per particle of every pair
//! (`particles.wgsl`):
//! 1. **count**: each invocation finds its pair by binary search on the
//!    running counts (Algorithm 3 line 3), places its particle at its cell's
//!    centre, runs the iterated projection (Algorithm 2) and counts a hit
//!    with an atomic add on its pair's counter;
//! 2. **prefix sum** over the counts — on the host (one pass over the pairs,
//!    between the two dispatches, where the buffer sizes are decided anyway);
//! 3. **write**: the same projections again, each hit written at its pair's
//!    offset plus an atomic cursor; read back, sorted per pair by particle
//!    index (the order within a pair is the GPU's), so results are
//!    reproducible and comparable with [`particle_contacts`]. Pairs without
//!    hits are not projected again. A frame whose contacts exceed the
//!    contact buffer (the adapter's storage-buffer limit, 128 MiB on
//!    lavapipe, or [`GpuParticles::limit_contact_buffer`]) runs this pass in
//!    batches of whole pairs.
//!
//! The WGSL SDFs are twins of the CPU ones (sphere, box, capsule, cylinder,
//! cone, capped cone, torus and first-order sampled grids under a rigid
//! pose): same formulas,
//! f32. A grid's values are copied once into one storage buffer (a vec4 per
//! sample: one load per cell corner). Zeroth-order and F16 grids, CSG and
//! the k-deepest / thinning rules stay on the CPU.
//!
//! # Examples
//!
//! ```no_run
//! use narrowphase::gpu::{GpuParticles, GpuShape};
//! use narrowphase::prelude::*;
//! use narrowphase::sdf::particles::ParticleParams;
//! use nalgebra::{Translation3, Vector3};
//!
//! let mut gpu = GpuParticles::new_blocking()?; // once
//! gpu.upload_shapes(&[
//!     GpuShape::Cuboid(Cuboid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap()),
//!     GpuShape::Sphere(Sphere::new(1.0).unwrap()),
//! ])?; // once
//! // Every frame: one pose per shape, the pairs to test.
//! let poses = [Pose::identity(), Pose::from_parts(Translation3::new(0.0, 0.0, 1.8), Default::default())];
//! let frame = gpu.contacts_blocking(&poses, &[(0, 1)], &ParticleParams::default())?;
//! for c in frame.pair(0) {
//!     let _ = (c.point, c.normal, c.depth);
//! }
//! # Ok::<(), narrowphase::error::GpuError>(())
//! ```
//!
//! [`pair_setup`]: crate::sdf::particles::pair_setup
//! [`particle_contacts`]: crate::sdf::particles::particle_contacts

use crate::error::GpuError;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::string::{String, ToString};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::vec::Vec;
use std::{format, vec};

use crate::math::Pose;
use crate::math::Vec3;
use crate::sdf::particles::{pair_setup, ParticleParams};
use crate::sdf::SdfSample;
use crate::shape::Placed;

mod shape;
pub use shape::GpuShape;
use shape::ShapeStore;

/// The shader, loaded into the binary.
const SHADER: &str = include_str!("particles.wgsl");
/// Invocations per workgroup (`@workgroup_size(64)` in the shader).
const WORKGROUP: u32 = 64;
/// Bytes of one contact in the shader's `contacts` buffer.
const CONTACT_BYTES: u64 = 48;

/// One contact from the GPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuContact {
    /// The pair (index into the frame's pair list).
    pub pair: u32,
    /// The particle within the pair (as [`particle_position`](crate::sdf::particles::particle_position)).
    pub particle: u32,
    /// On the surface of `A ∩ B` (within `ε`).
    pub point: Vec3<f32>,
    /// `∇φ_B` at the point.
    pub normal: Vec3<f32>,
    /// `min(φ_A, φ_B)`.
    pub depth: f32,
    /// Projection steps taken.
    pub steps: u32,
}

/// The contacts of one frame, grouped by pair.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameContacts {
    /// All contacts, pair by pair, each pair's by particle index.
    pub contacts: Vec<GpuContact>,
    /// `contacts[ranges[k]]` are pair `k`'s.
    pub ranges: Vec<Range<usize>>,
    /// Particles projected (all pairs).
    pub particles: u64,
}

impl FrameContacts {
    /// Pair `k`'s contacts (empty for an unknown pair).
    pub fn pair(&self, k: usize) -> &[GpuContact] {
        self.ranges.get(k).and_then(|r| self.contacts.get(r.clone())).unwrap_or(&[])
    }
}

/// A buffer that grows when a frame needs more.
struct Grow {
    buffer: wgpu::Buffer,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &'static str,
}

impl Grow {
    fn new(device: &wgpu::Device, label: &'static str, usage: wgpu::BufferUsages) -> Self {
        let size = 256;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        });
        Self { buffer, size, usage, label }
    }
    /// At least `bytes` (rounded up to a power of two); `true` when it was
    /// reallocated (bind groups must be rebuilt).
    fn ensure(&mut self, device: &wgpu::Device, bytes: u64) -> bool {
        if bytes <= self.size {
            return false;
        }
        let size = bytes.next_power_of_two().max(256);
        self.buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(self.label),
            size,
            usage: self.usage,
            mapped_at_creation: false,
        });
        self.size = size;
        true
    }
}

/// The GPU pipeline: create once, upload shapes once, query every frame.
/// Buffers are reused between frames and grow when a frame needs more.
pub struct GpuParticles {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: String,
    layout: wgpu::BindGroupLayout,
    count: wgpu::ComputePipeline,
    write: wgpu::ComputePipeline,
    probe: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    shapes: Grow,
    poses: Grow,
    pairs: Grow,
    ends: Grow,
    counts: Grow,
    offsets: Grow,
    contacts: Grow,
    probes: Grow,
    probe_out: Grow,
    readback: Grow,
    grids: Grow,
    cpu_shapes: ShapeStore,
    max_storage: u64,
    /// Contacts written per write pass (the contact buffer's size / 48).
    contacts_per_pass: u64,
}

/// Storage usage for inputs written by the host.
fn input_usage() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST
}

/// Storage usage for outputs read back.
fn output_usage() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST
}

/// Poses as the shader's `Pose`: the rows of `[R | t]`.
/// The poses as the shaders read them: rigid, as [`Placed`] keeps them
/// (the CPU twins and the GPU must see the same bodies to the last bit).
fn encode_poses(poses: &[Pose<f32>]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(poses.len() * 48);
    for p in poses {
        let p = crate::shape::orthonormalised(p);
        let r = p.rotation.matrix();
        let t = p.translation.vector;
        for i in 0..3 {
            [r[(i, 0)], r[(i, 1)], r[(i, 2)], t[i]].iter().for_each(|&v| push_f32(&mut bytes, v));
        }
    }
    bytes
}

fn push_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn push_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn read_f32(b: &[u8], at: usize) -> f32 {
    b.get(at..at + 4).and_then(|s| s.try_into().ok()).map_or(f32::NAN, f32::from_le_bytes)
}

fn read_u32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).and_then(|s| s.try_into().ok()).map_or(0, u32::from_le_bytes)
}

impl GpuParticles {
    /// Opens the first adapter wgpu offers (high performance preferred;
    /// Mesa's lavapipe on a machine without a GPU) and builds the pipeline.
    ///
    /// # Errors
    ///
    /// - [`GpuError::NoAdapter`] if no wgpu backend is compiled for this
    ///   platform or no adapter is found (not even a software one);
    /// - [`GpuError::Device`] if the adapter refuses a device with its own
    ///   limits.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), narrowphase::error::GpuError> {
    /// let gpu = narrowphase::gpu::GpuParticles::new().await?;
    /// assert!(!gpu.adapter_info().is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn new() -> Result<Self, GpuError> {
        if wgpu::Instance::enabled_backend_features().is_empty() {
            return Err(GpuError::NoAdapter("no wgpu backend compiled for this platform".into()));
        }
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let info = adapter.get_info();
        let info = format!("{} ({:?}, {})", info.name, info.backend, info.driver);
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("narrowphase"),
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::Device(e.to_string()))?;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("particles.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let entry = |binding: u32, ty: wgpu::BufferBindingType| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
            count: None,
        };
        let ro = wgpu::BufferBindingType::Storage { read_only: true };
        let rw = wgpu::BufferBindingType::Storage { read_only: false };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("particles"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Uniform),
                entry(1, ro),
                entry(2, ro),
                entry(3, ro),
                entry(4, ro),
                entry(5, rw),
                entry(6, ro),
                entry(7, rw),
                entry(8, ro),
                entry(9, rw),
                entry(10, ro),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("particles"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |name: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(name),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(name),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let (count, write, probe) = (pipeline("count"), pipeline("write"), pipeline("probe"));
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("params"),
            size: 32,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let readback_usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
        let max_storage = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        Ok(Self {
            shapes: Grow::new(&device, "shapes", input_usage()),
            poses: Grow::new(&device, "poses", input_usage()),
            pairs: Grow::new(&device, "pairs", input_usage()),
            ends: Grow::new(&device, "ends", input_usage()),
            counts: Grow::new(&device, "counts", output_usage()),
            offsets: Grow::new(&device, "offsets", input_usage()),
            contacts: Grow::new(&device, "contacts", output_usage()),
            probes: Grow::new(&device, "probes", input_usage()),
            probe_out: Grow::new(&device, "probe_out", output_usage()),
            readback: Grow::new(&device, "readback", readback_usage),
            grids: Grow::new(&device, "grids", input_usage()),
            max_storage,
            contacts_per_pass: max_storage / CONTACT_BYTES,
            device,
            queue,
            info,
            layout,
            count,
            write,
            probe,
            params,
            cpu_shapes: ShapeStore::default(),
        })
    }

    /// [`new`](Self::new), blocking the calling thread.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new): [`GpuError::NoAdapter`] or [`GpuError::Device`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let gpu = narrowphase::gpu::GpuParticles::new_blocking()?;
    /// println!("running on {}", gpu.adapter_info());
    /// # Ok::<(), narrowphase::error::GpuError>(())
    /// ```
    pub fn new_blocking() -> Result<Self, GpuError> {
        block_on(Self::new())
    }

    /// The adapter's name, backend and driver.
    pub fn adapter_info(&self) -> &str {
        &self.info
    }

    /// Caps the GPU memory of the contact buffer at `bytes` (48 bytes a
    /// contact; at most the adapter's storage-buffer limit, which is also
    /// the default — 128 MiB on lavapipe). A frame with more contacts runs
    /// its write pass and readback in several batches of whole pairs; only
    /// a single pair with more contacts than fit is
    /// [`GpuError::LimitExceeded`]. Returns the cap in force.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let mut gpu = narrowphase::gpu::GpuParticles::new_blocking()?;
    /// assert_eq!(gpu.limit_contact_buffer(48 << 20), 48 << 20); // 1 M contacts a batch
    /// # Ok::<(), narrowphase::error::GpuError>(())
    /// ```
    pub fn limit_contact_buffer(&mut self, bytes: u64) -> u64 {
        self.contacts_per_pass = (bytes.min(self.max_storage) / CONTACT_BYTES).max(1);
        self.contacts_per_pass * CONTACT_BYTES
    }

    /// The shapes, once (or whenever they change); pairs name them by index
    /// and every frame gives one pose per shape. Grid values are copied
    /// (to the GPU, and a host copy for [`placed`](Self::placed)).
    ///
    /// # Errors
    ///
    /// [`GpuError::LimitExceeded`] if the shape records or the grid values
    /// need a buffer beyond the adapter's storage-buffer limit; the shapes
    /// uploaded before stay in force then.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use narrowphase::gpu::{GpuParticles, GpuShape};
    /// use narrowphase::prelude::*;
    /// let mut gpu = GpuParticles::new_blocking()?;
    /// let ball = GpuShape::Sphere(Sphere::new(0.5).unwrap());
    /// gpu.upload_shapes(&[ball, GpuShape::Torus(Torus::new(2.0, 0.5).unwrap())])?;
    /// assert_eq!(gpu.placed(&[Pose::identity(), Pose::identity()]).len(), 2);
    /// # Ok::<(), narrowphase::error::GpuError>(())
    /// ```
    pub fn upload_shapes(&mut self, shapes: &[GpuShape<'_>]) -> Result<(), GpuError> {
        let store = ShapeStore::new(shapes);
        let (bytes, grid_bytes) = (store.shape_bytes(), store.grid_bytes());
        self.check_size("shape buffer bytes", bytes.len() as u64)?;
        self.check_size("grid value bytes", grid_bytes.len() as u64)?;
        self.shapes.ensure(&self.device, bytes.len() as u64);
        self.queue.write_buffer(&self.shapes.buffer, 0, &bytes);
        self.grids.ensure(&self.device, grid_bytes.len() as u64);
        self.queue.write_buffer(&self.grids.buffer, 0, &grid_bytes);
        self.cpu_shapes = store;
        Ok(())
    }

    /// The uploaded shapes placed at `poses`: what the CPU reference runs.
    pub fn placed(&self, poses: &[Pose<f32>]) -> Vec<Placed<GpuShape<'_>, f32>> {
        (0..self.cpu_shapes.len())
            .filter_map(|i| self.cpu_shapes.get(i))
            .zip(poses)
            .map(|(s, p)| Placed::new(s, *p))
            .collect()
    }

    fn check_size(&self, what: &'static str, bytes: u64) -> Result<(), GpuError> {
        if bytes > self.max_storage {
            return Err(GpuError::LimitExceeded { what, requested: bytes, limit: self.max_storage });
        }
        Ok(())
    }

    fn bind_group(&self) -> wgpu::BindGroup {
        fn b(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() }
        }
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("particles"),
            layout: &self.layout,
            entries: &[
                b(0, &self.params),
                b(1, &self.shapes.buffer),
                b(2, &self.poses.buffer),
                b(3, &self.pairs.buffer),
                b(4, &self.ends.buffer),
                b(5, &self.counts.buffer),
                b(6, &self.offsets.buffer),
                b(7, &self.contacts.buffer),
                b(8, &self.probes.buffer),
                b(9, &self.probe_out.buffer),
                b(10, &self.grids.buffer),
            ],
        })
    }

    /// Runs `pipeline` over `invocations` (a 2D grid of workgroups when one
    /// row is not enough; [`row`](Self::row) gives the shader its length).
    fn dispatch(&self, pipeline: &wgpu::ComputePipeline, invocations: u32, encoder: &mut wgpu::CommandEncoder) {
        let groups = invocations.div_ceil(WORKGROUP).max(1);
        let max = self.device.limits().max_compute_workgroups_per_dimension.max(1);
        let (x, y) = if groups <= max { (groups, 1) } else { (max, groups.div_ceil(max)) };
        let bind = self.bind_group();
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }

    fn row(&self, invocations: u32) -> u32 {
        let groups = invocations.div_ceil(WORKGROUP).max(1);
        let max = self.device.limits().max_compute_workgroups_per_dimension.max(1);
        groups.min(max) * WORKGROUP
    }

    /// The shader's `Params`: the frame's pair count, the particles this
    /// dispatch runs (global indices), the step cap, the grid's row length.
    fn set_params(&self, n_pairs: u32, particles: Range<u32>, max_steps: u32) {
        let row = self.row(particles.end - particles.start);
        let mut uniform = Vec::with_capacity(32);
        [n_pairs, particles.end, max_steps, row, particles.start, 0, 0, 0]
            .iter()
            .for_each(|&v| push_u32(&mut uniform, v));
        self.queue.write_buffer(&self.params, 0, &uniform);
    }

    /// Copies `bytes` of `src` back to the host.
    async fn read(&mut self, src: &'static str, bytes: u64) -> Result<Vec<u8>, GpuError> {
        let bytes = bytes.max(4).next_multiple_of(4);
        self.readback.ensure(&self.device, bytes);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let from = match src {
            "counts" => &self.counts.buffer,
            "contacts" => &self.contacts.buffer,
            _ => &self.probe_out.buffer,
        };
        encoder.copy_buffer_to_buffer(from, 0, &self.readback.buffer, 0, bytes);
        self.queue.submit([encoder.finish()]);
        let state = Arc::new(AtomicU8::new(0));
        let flag = state.clone();
        let slice = self.readback.buffer.slice(..bytes);
        slice.map_async(wgpu::MapMode::Read, move |r| flag.store(if r.is_ok() { 1 } else { 2 }, Ordering::Release));
        Mapped { device: &self.device, state: &state }.await;
        if state.load(Ordering::Acquire) != 1 {
            return Err(GpuError::Readback("map failed".into()));
        }
        let out = slice.get_mapped_range().map_err(|e| GpuError::Readback(format!("{e:?}")))?.to_vec();
        self.readback.buffer.unmap();
        Ok(out)
    }

    /// The contacts of one frame: `poses[i]` places shape `i`; each pair
    /// `(a, b)` runs the particle method with `params` (resolution, steps,
    /// `ε`; `thinning` is not applied on the GPU, though an invalid one is
    /// still refused). Awaiting it polls the device (wgpu's native backends
    /// call back only from a poll).
    ///
    /// # Errors
    ///
    /// Checked before anything runs on the GPU, unless said otherwise:
    /// - [`GpuError::BadIndex`] if `poses` does not hold one pose per
    ///   uploaded shape (`index` is then `poses.len()`), or a pair names a
    ///   shape that was not uploaded;
    /// - [`GpuError::NonFinitePose`] with the first pose that has a NaN or
    ///   infinite entry;
    /// - [`GpuError::Particles`] if a pair's particle set cannot be built, as
    ///   [`pair_setup`] refuses it on the CPU (a bad `params`, including a
    ///   `thinning` that is `Some` of a value that is not finite and
    ///   positive; a region that is not finite; too many particles);
    /// - [`GpuError::LimitExceeded`] if the frame has more than `u32::MAX / 2`
    ///   particles, needs more workgroups than one dispatch allows, or a
    ///   buffer beyond the adapter's storage-buffer limit; after the count
    ///   pass, also if a single pair has more contacts than the contact
    ///   buffer holds ([`limit_contact_buffer`](Self::limit_contact_buffer));
    /// - [`GpuError::Readback`] if reading the counts or the contacts back
    ///   fails.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use narrowphase::gpu::{GpuParticles, GpuShape};
    /// use narrowphase::prelude::*;
    /// use narrowphase::sdf::particles::ParticleParams;
    /// use nalgebra::{Translation3, Vector3};
    /// # async fn run() -> Result<(), narrowphase::error::GpuError> {
    /// let mut gpu = GpuParticles::new().await?;
    /// gpu.upload_shapes(&[GpuShape::Cuboid(Cuboid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap()),
    ///     GpuShape::Sphere(Sphere::new(1.0).unwrap())])?;
    /// // The ball sunk 0.2 into the top of the cube: every contact at most 0.2 deep.
    /// let poses = [Pose::identity(), Pose::from_parts(Translation3::new(0.0, 0.0, 1.8), Default::default())];
    /// let frame = gpu.contacts(&poses, &[(0, 1)], &ParticleParams::default()).await?;
    /// assert!(!frame.pair(0).is_empty());
    /// assert!(frame.pair(0).iter().all(|c| c.depth >= -0.2 - 1e-3));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn contacts(
        &mut self,
        poses: &[Pose<f32>],
        pairs: &[(u32, u32)],
        params: &ParticleParams<f32>,
    ) -> Result<FrameContacts, GpuError> {
        let n_shapes = self.cpu_shapes.len() as u32;
        self.check_poses(poses)?;
        let placed = self.placed(poses);
        // Per pair: the CPU's particle set.
        let (mut pair_bytes, mut ends) = (Vec::with_capacity(pairs.len() * 64), Vec::with_capacity(pairs.len()));
        let mut total: u64 = 0;
        for &(a, b) in pairs {
            let (Some(pa), Some(pb)) = (placed.get(a as usize), placed.get(b as usize)) else {
                return Err(GpuError::BadIndex { index: a.max(b), shapes: n_shapes });
            };
            let setup = pair_setup(pa, pb, params).map_err(GpuError::Particles)?;
            let (lo, hi, res, count, eps) = match setup {
                Some(s) => (s.region.min, s.region.max, s.resolution, s.count, s.epsilon),
                None => (Vec3::zeros(), Vec3::zeros(), [1, 1, 1], 0, 0.0),
            };
            let first = total as u32;
            total += u64::from(count);
            [lo.x, lo.y, lo.z, eps, hi.x, hi.y, hi.z, 0.0].iter().for_each(|&v| push_f32(&mut pair_bytes, v));
            [res[0], res[1], res[2], count, a, b, first, 0].iter().for_each(|&v| push_u32(&mut pair_bytes, v));
            ends.push(total);
        }
        let limit = u64::from(u32::MAX / 2);
        if total > limit {
            return Err(GpuError::LimitExceeded { what: "particles per frame", requested: total, limit });
        }
        let groups = total.div_ceil(u64::from(WORKGROUP));
        let max_groups = u64::from(self.device.limits().max_compute_workgroups_per_dimension);
        if groups > max_groups * max_groups {
            return Err(GpuError::LimitExceeded {
                what: "workgroups per dispatch",
                requested: groups,
                limit: max_groups * max_groups,
            });
        }
        let total = total as u32;
        let n_pairs = pairs.len() as u32;
        // Inputs.
        let pose_bytes = encode_poses(poses);
        let mut end_bytes = Vec::with_capacity(ends.len() * 4);
        ends.iter().for_each(|&e| push_u32(&mut end_bytes, e as u32));
        for (what, len) in [
            ("pair buffer bytes", pair_bytes.len()),
            ("pose buffer bytes", pose_bytes.len()),
            ("count buffer bytes", end_bytes.len()),
        ] {
            self.check_size(what, len as u64)?;
        }
        self.poses.ensure(&self.device, pose_bytes.len() as u64);
        self.pairs.ensure(&self.device, pair_bytes.len() as u64);
        self.ends.ensure(&self.device, end_bytes.len() as u64);
        self.counts.ensure(&self.device, end_bytes.len() as u64);
        self.offsets.ensure(&self.device, end_bytes.len() as u64);
        self.queue.write_buffer(&self.poses.buffer, 0, &pose_bytes);
        self.queue.write_buffer(&self.pairs.buffer, 0, &pair_bytes);
        self.queue.write_buffer(&self.ends.buffer, 0, &end_bytes);
        let zeros = vec![0u8; end_bytes.len()];
        self.queue.write_buffer(&self.counts.buffer, 0, &zeros);
        self.set_params(n_pairs, 0..total, params.max_steps);
        if total == 0 {
            return Ok(FrameContacts { contacts: Vec::new(), ranges: vec![0..0; pairs.len()], particles: 0 });
        }
        // Pass 1: counts.
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.dispatch(&self.count, total, &mut encoder);
        self.queue.submit([encoder.finish()]);
        let counts = self.read("counts", end_bytes.len() as u64).await?;
        // Prefix sum on the host, and batches of whole pairs whose contacts
        // fit the contact buffer (one batch unless the frame is huge).
        let per_pass = self.contacts_per_pass;
        let (mut offsets, mut ranges) = (Vec::with_capacity(end_bytes.len()), Vec::with_capacity(pairs.len()));
        let mut batches: Vec<(Range<usize>, Range<usize>)> = Vec::new(); // (pairs, contacts)
        let mut hits = 0usize;
        for k in 0..pairs.len() {
            let c = read_u32(&counts, 4 * k) as usize;
            if c as u64 > per_pass {
                let (requested, limit) = (c as u64 * CONTACT_BYTES, per_pass * CONTACT_BYTES);
                return Err(GpuError::LimitExceeded { what: "contact bytes of one pair", requested, limit });
            }
            // A batch starts and ends at a pair with hits: the particles of
            // pairs without any are not projected again.
            if c > 0 {
                match batches.last_mut() {
                    Some((ks, cs)) if ((hits + c - cs.start) as u64) <= per_pass => {
                        ks.end = k + 1;
                        cs.end = hits + c;
                    }
                    _ => batches.push((k..k + 1, hits..hits + c)),
                }
            }
            let start = batches.last().map_or(0, |b| b.1.start);
            push_u32(&mut offsets, (hits - start) as u32);
            ranges.push(hits..hits + c);
            hits += c;
        }
        let largest = batches.iter().map(|b| b.1.len()).max().unwrap_or(0);
        self.contacts.ensure(&self.device, (largest.max(1) as u64) * CONTACT_BYTES);
        self.queue.write_buffer(&self.offsets.buffer, 0, &offsets);
        self.queue.write_buffer(&self.counts.buffer, 0, &zeros);
        // Pass 2: write, batch by batch (the pairs' particles only).
        let mut contacts: Vec<GpuContact> = Vec::with_capacity(hits);
        for (ks, cs) in batches {
            let first = if ks.start == 0 { 0 } else { ends[ks.start - 1] as u32 };
            let last = ends[ks.end - 1] as u32;
            self.set_params(n_pairs, first..last, params.max_steps);
            let mut encoder = self.device.create_command_encoder(&Default::default());
            self.dispatch(&self.write, last - first, &mut encoder);
            self.queue.submit([encoder.finish()]);
            let raw = self.read("contacts", cs.len() as u64 * CONTACT_BYTES).await?;
            contacts.extend((0..cs.len()).map(|i| {
                let at = CONTACT_BYTES as usize * i;
                let f = |k: usize| read_f32(&raw, at + 4 * k);
                GpuContact {
                    point: Vec3::new(f(0), f(1), f(2)),
                    depth: f(3),
                    normal: Vec3::new(f(4), f(5), f(6)),
                    pair: read_u32(&raw, at + 32),
                    particle: read_u32(&raw, at + 36),
                    steps: read_u32(&raw, at + 40),
                }
            }));
        }
        for r in &ranges {
            if let Some(s) = contacts.get_mut(r.clone()) {
                s.sort_unstable_by_key(|c| c.particle);
            }
        }
        Ok(FrameContacts { contacts, ranges, particles: u64::from(total) })
    }

    /// [`contacts`](Self::contacts), blocking the calling thread.
    ///
    /// # Errors
    ///
    /// As [`contacts`](Self::contacts):
    /// Checked before anything runs on the GPU, unless said otherwise:
    /// - [`GpuError::BadIndex`] if `poses` does not hold one pose per
    ///   uploaded shape (`index` is then `poses.len()`), or a pair names a
    ///   shape that was not uploaded;
    /// - [`GpuError::NonFinitePose`] with the first pose that has a NaN or
    ///   infinite entry;
    /// - [`GpuError::Particles`] if a pair's particle set cannot be built, as
    ///   [`pair_setup`] refuses it on the CPU (a bad `params`, including a
    ///   `thinning` that is `Some` of a value that is not finite and
    ///   positive; a region that is not finite; too many particles);
    /// - [`GpuError::LimitExceeded`] if the frame has more than `u32::MAX / 2`
    ///   particles, needs more workgroups than one dispatch allows, or a
    ///   buffer beyond the adapter's storage-buffer limit; after the count
    ///   pass, also if a single pair has more contacts than the contact
    ///   buffer holds ([`limit_contact_buffer`](Self::limit_contact_buffer));
    /// - [`GpuError::Readback`] if reading the counts or the contacts back
    ///   fails.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use narrowphase::gpu::{GpuParticles, GpuShape};
    /// use narrowphase::error::GpuError;
    /// use narrowphase::prelude::*;
    /// use narrowphase::sdf::particles::ParticleParams;
    /// let mut gpu = GpuParticles::new_blocking()?;
    /// gpu.upload_shapes(&[GpuShape::Sphere(Sphere::new(1.0).unwrap())])?;
    /// // One shape uploaded, two poses given.
    /// let err = gpu.contacts_blocking(&[Pose::identity(); 2], &[], &ParticleParams::default()).unwrap_err();
    /// assert_eq!(err, GpuError::BadIndex { index: 2, shapes: 1 });
    /// # Ok::<(), GpuError>(())
    /// ```
    pub fn contacts_blocking(
        &mut self,
        poses: &[Pose<f32>],
        pairs: &[(u32, u32)],
        params: &ParticleParams<f32>,
    ) -> Result<FrameContacts, GpuError> {
        block_on(self.contacts(poses, pairs, params))
    }

    /// The WGSL SDFs as the GPU computes them: for every `(shape, point)`,
    /// the value and gradient of the uploaded shape `shape` placed at
    /// `poses[shape]` (the twin tests compare them with the CPU's
    /// [`placed`](Self::placed) shapes).
    ///
    /// # Errors
    ///
    /// - [`GpuError::BadIndex`] if `poses` does not hold one pose per
    ///   uploaded shape (`index` is then `poses.len()`), or a point names a
    ///   shape that was not uploaded;
    /// - [`GpuError::NonFinitePose`] with the first pose that has a NaN or
    ///   infinite entry;
    /// - [`GpuError::LimitExceeded`] if the points need a buffer beyond the
    ///   adapter's storage-buffer limit;
    /// - [`GpuError::Readback`] if reading the samples back fails.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use narrowphase::gpu::{GpuParticles, GpuShape};
    /// use narrowphase::prelude::*;
    /// use nalgebra::Vector3;
    /// let mut gpu = GpuParticles::new_blocking()?;
    /// gpu.upload_shapes(&[GpuShape::Sphere(Sphere::new(1.0).unwrap())])?;
    /// let s = gpu.probe_blocking(&[Pose::identity()], &[(0, Vector3::new(3.0, 0.0, 0.0))])?;
    /// assert!((s[0].value - 2.0).abs() < 1e-6);
    /// # Ok::<(), narrowphase::error::GpuError>(())
    /// ```
    pub fn probe_blocking(
        &mut self,
        poses: &[Pose<f32>],
        points: &[(u32, Vec3<f32>)],
    ) -> Result<Vec<SdfSample<f32, 3>>, GpuError> {
        block_on(self.probe(poses, points))
    }

    /// One pose per uploaded shape, each finite (`BadIndex` carries the
    /// pose count when it differs from the shape count).
    fn check_poses(&self, poses: &[Pose<f32>]) -> Result<(), GpuError> {
        if poses.len() != self.cpu_shapes.len() {
            return Err(GpuError::BadIndex { index: poses.len() as u32, shapes: self.cpu_shapes.len() as u32 });
        }
        match poses.iter().position(|p| !p.to_homogeneous().iter().all(|v| v.is_finite())) {
            Some(i) => Err(GpuError::NonFinitePose(i as u32)),
            None => Ok(()),
        }
    }

    async fn probe(
        &mut self,
        poses: &[Pose<f32>],
        points: &[(u32, Vec3<f32>)],
    ) -> Result<Vec<SdfSample<f32, 3>>, GpuError> {
        self.check_poses(poses)?;
        let pose_bytes = encode_poses(poses);
        let mut probe_bytes = Vec::with_capacity(points.len() * 16);
        for (s, x) in points {
            if *s >= self.cpu_shapes.len() as u32 {
                return Err(GpuError::BadIndex { index: *s, shapes: self.cpu_shapes.len() as u32 });
            }
            [x.x, x.y, x.z, *s as f32].iter().for_each(|&v| push_f32(&mut probe_bytes, v));
        }
        self.check_size("probe buffer bytes", probe_bytes.len() as u64)?;
        self.poses.ensure(&self.device, pose_bytes.len() as u64);
        self.queue.write_buffer(&self.poses.buffer, 0, &pose_bytes);
        // `arrayLength(&probes)` is the binding's length: an exact-size buffer.
        self.probes.buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probes"),
            size: (probe_bytes.len() as u64).max(16),
            usage: input_usage(),
            mapped_at_creation: false,
        });
        self.probes.size = (probe_bytes.len() as u64).max(16);
        self.probe_out.ensure(&self.device, probe_bytes.len() as u64);
        self.queue.write_buffer(&self.probes.buffer, 0, &probe_bytes);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.dispatch(&self.probe, points.len() as u32, &mut encoder);
        self.queue.submit([encoder.finish()]);
        let raw = self.read("probe_out", probe_bytes.len() as u64).await?;
        Ok((0..points.len())
            .map(|i| {
                let f = |k: usize| read_f32(&raw, 16 * i + 4 * k);
                SdfSample { value: f(3), gradient: Vec3::new(f(0), f(1), f(2)) }
            })
            .collect())
    }
}

/// Waits for a buffer mapping, polling the device.
struct Mapped<'a> {
    device: &'a wgpu::Device,
    state: &'a AtomicU8,
}

impl Future for Mapped<'_> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        if self.state.load(Ordering::Acquire) != 0 {
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// A minimal executor: runs a future to completion on this thread.
fn block_on<F: Future>(f: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for GpuShape<'_> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "GpuShape {{ kind: {} }}", self.kind())
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for GpuError {
    fn format(&self, f: defmt::Formatter) {
        match self {
            GpuError::NoAdapter(s) => defmt::write!(f, "NoAdapter({})", s.as_str()),
            GpuError::Device(s) => defmt::write!(f, "Device({})", s.as_str()),
            GpuError::LimitExceeded { what, requested, limit } => {
                defmt::write!(f, "LimitExceeded {{ what: {}, requested: {}, limit: {} }}", what, requested, limit)
            }
            GpuError::BadIndex { index, shapes } => {
                defmt::write!(f, "BadIndex {{ index: {}, shapes: {} }}", index, shapes)
            }
            GpuError::Particles(e) => defmt::write!(f, "Particles({})", e),
            GpuError::NonFinitePose(i) => defmt::write!(f, "NonFinitePose({})", i),
            GpuError::Readback(s) => defmt::write!(f, "Readback({})", s.as_str()),
        }
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for GpuContact {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "GpuContact {{ pair: {}, particle: {}, point: {}, normal: {}, depth: {}, steps: {} }}",
            self.pair,
            self.particle,
            self.point.as_slice(),
            self.normal.as_slice(),
            self.depth,
            self.steps
        )
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for FrameContacts {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "FrameContacts {{ pairs: {}, contacts: {}, particles: {} }}",
            self.ranges.len(),
            self.contacts.len(),
            self.particles
        )
    }
}

#[cfg(feature = "defmt")]
#[allow(dead_code)]
fn _defmt_check() {
    fn check<T: defmt::Format>() {}
    check::<GpuShape<'static>>();
    check::<GpuError>();
    check::<GpuContact>();
    check::<FrameContacts>();
}
