// Shared by the C renderer and its GLSL shaders: binding numbers, vertex locations, material modes and
// the uniform/push-constant layouts, so the two sides cannot drift. Every member is a vec4 or a mat4,
// which makes the std140 / push-constant layout identical to the tightly packed C struct.
#ifndef WEFT_RENDER_SHARED_H
#define WEFT_RENDER_SHARED_H

#define RD_BINDING_SCENE 0    // uniform buffer: RdScene
#define RD_BINDING_TEXTURE 1  // combined image sampler: the checker-weave texture
#define RD_BINDING_SHADOW 2   // combined image sampler with depth compare: the key light's shadow map
#define RD_BINDING_SCENE_RW 3 // the same RdScene as a storage buffer: the light pass writes its shadow fields
#define RD_BINDING_BOUNDS 4   // storage buffer: (6) uint, the shadow casters' box as order-preserving uints

// Set 1, one per cloth: its state as arrays of vec4 (the solver's own buffers when the renderer shares
// the world's device, else the renderer's upload of them) and the rest shape for strain.
#define RD_CLOTH_POSITIONS 0
#define RD_CLOTH_VELOCITIES 1
#define RD_CLOTH_REST 2
#define RD_CLOTH_NORMALS 3 // read by the seam pipeline, which pulls positions and normals per particle

// A mesh with UV seams is drawn through its own vertices (one per distinct particle and UV), each
// naming its particle: lit.vert compiled with RD_PULL reads that particle's position and normal.
#define RD_LOCATION_PARTICLE 3

// Vertex streams, one binding each: positions and normals with a 16-byte stride (vec4 in the solver's
// buffers), uvs with 8.
#define RD_LOCATION_POSITION 0
#define RD_LOCATION_NORMAL 1
#define RD_LOCATION_UV 2
#define RD_VERTEX_STRIDE 16

#define RD_BOUNDS_GROUP 256 // invocations of a bounds workgroup

// The nodes view (the third document's own view): every particle a small sphere coloured by speed,
// every stretch and shear constraint of the grid a line coloured by its signed strain, blue through
// grey to red, saturated at RD_NODES_STRAIN_FULL so that a 1 % stretch shows at half.
#define RD_NODES_STRAIN_FULL 0.02
#define RD_NODES_PARTICLES -1 // RdDraw.mode.w: one instance per particle (the nodes' spheres)
#define RD_SHAPE_AXES -2      // RdDraw.mode.w: a collider's mesh placed by transform.xyz and the axes

// RdDraw.mode.x: how the fragment shader colours a surface.
#define RD_MODE_TEXTURE 0 // cloth: checker-weave texture
#define RD_MODE_SPEED 1   // cloth: scalar = speed, colour ramp
#define RD_MODE_STRAIN 2  // cloth: scalar = signed strain, diverging ramp
#define RD_MODE_SOLID 3   // sphere, pin markers: RdDraw.color
#define RD_MODE_FLOOR 4   // floor plane: colour + grid from the world position

#ifdef VULKAN
#define RD_VEC4(n) vec4 n;
#define RD_IVEC4(n) ivec4 n;
#define RD_MAT4(n) mat4 n;
#else
#define RD_VEC4(n) float n[4];
#define RD_IVEC4(n) int32_t n[4];
#define RD_MAT4(n) float n[16];
#endif

// Per frame (uniform buffer). Colours are linear.
#define RD_SCENE_FIELDS \
	RD_MAT4(viewProj)      /* world -> clip (Vulkan: y down, z in [0, 1]) */ \
	RD_MAT4(lightViewProj) /* world -> the shadow map's clip space (orthographic along the key light) */ \
	RD_VEC4(eye)           /* xyz camera position */ \
	RD_VEC4(lightDir)      /* xyz unit direction towards the key light */ \
	RD_VEC4(lightColor)    /* rgb key light */ \
	RD_VEC4(skyColor)      /* rgb hemisphere fill from above */ \
	RD_VEC4(groundColor)   /* rgb hemisphere fill from below */ \
	RD_VEC4(background)    /* rgb background; the floor fades into it */ \
	RD_VEC4(shadow)        /* x 1 when the shadow map holds this frame's casters, y one texel in uv */ \
	RD_VEC4(params)        /* x speed scale, y strain scale, z floor height, w grid spacing */

// Per draw (push constants, 112 bytes).
#define RD_DRAW_FIELDS \
	RD_VEC4(transform) /* world = xyz + w * vertex (with mode.w RD_SHAPE_AXES: xyz + axes * vertex) */ \
	RD_VEC4(axisX)     /* RD_SHAPE_AXES: where the mesh's x, y and z go (rotation times scale) */ \
	RD_VEC4(axisY) \
	RD_VEC4(axisZ) \
	RD_VEC4(color)    /* rgb base colour */ \
	RD_VEC4(material) /* x specular strength, y shininess, z depth pull towards the camera (cloth, lines) */ \
	RD_IVEC4(mode)    /* x RD_MODE_*; y, z a cloth's columns and rows (0 for other meshes); */ \
					  /* w a pin marker: particle index + 1 in set 1's cloth (0: none) */

#endif
