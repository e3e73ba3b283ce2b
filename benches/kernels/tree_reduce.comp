// GLSL twin of tree_reduce.pisa: a grid-stride sum per work-item, then a
// halving tree over the work-group's 256 partial sums in shared memory (one
// barrier per step). out[g] = the sum (mod 2^32) of what work-group g visited.
// Arguments: in (u32*) at 0, out (u32*) at 8, n (u32) at 16.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// the work-group size is given by specialization constants 0, 1, 2 (docs/abi.md)
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
// the launch block every kernel receives as push constants (docs/abi.md)
layout(push_constant) uniform PisaLaunch {
    uvec2 data_base; uvec2 params;
    uint global_offset_x, global_offset_y, global_offset_z, work_dim;
    uint global_size_x, global_size_y, global_size_z;
    uint group_offset_x, group_offset_y, group_offset_z;
    uint enqueued_x, enqueued_y, enqueued_z;
    uint pad; uvec2 status;
} launch;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32 { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Args { U32 src; U32 dst; uint n; };

shared uint partial[256];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint grp = gl_WorkGroupID.x + launch.group_offset_x;
    uint gid = grp * 256 + lid;
    uint stride = launch.global_size_x;
    Args args = Args(packUint2x32(launch.params));
    uint sum = 0;
    for (uint i = gid; i < args.n; i += stride) sum += args.src.v[i];
    partial[lid] = sum;
    for (uint half_ = 128; half_ != 0; half_ >>= 1) {
        barrier();
        if (lid < half_) partial[lid] += partial[lid + half_];
    }
    if (lid != 0) return;
    args.dst.v[grp] = partial[0];
}
