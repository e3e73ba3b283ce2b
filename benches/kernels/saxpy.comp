// GLSL twin of shaders/saxpy.pisa: y[i] = fma(a, x[i], y[i]) for i < n.
// Arguments (as the .pisa kernel's .param list lays them out):
// a (f32) at 0, x (f32*) at 8, y (f32*) at 16, n (u32) at 24.
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
layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32 { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Args { float a; F32 x; F32 y; uint n; };

void main() {
    uint gid = (gl_WorkGroupID.x + launch.group_offset_x) * launch.enqueued_x + gl_LocalInvocationID.x;
    Args args = Args(packUint2x32(launch.params));
    if (gid >= args.n) return;
    // fmad.f is a fused multiply-add
    args.y.v[gid] = fma(args.a, args.x.v[gid], args.y.v[gid]);
}
