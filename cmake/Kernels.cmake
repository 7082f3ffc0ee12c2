# The GPU kernels: the production compute shaders (GLSL in src/vulkan/shaders/) and every file they
# include. One source for two targets: the Vulkan backend compiles them to SPIR-V words
# (cmake/VulkanBackend.cmake), the web build to WGSL through naga (web/CMakeLists.txt).
set(WEFT_KERNEL_DIR ${PROJECT_SOURCE_DIR}/src/vulkan/shaders)
set(WEFT_KERNELS predict xpbd_solve xpbd_tiled finish finish_self jacobi_sweep jacobi_tiled springs springs_tiled normals check stats_particles stats_constraints
  fused_xpbd fused_jacobi fused_springs contact_grid contact_scan contact_gather contact_triangle contact_edge collide_mesh tether_keys)
set(WEFT_KERNEL_HEADERS ${PROJECT_SOURCE_DIR}/src/gpu/kernel_abi.h)
foreach(_header common fused fused_self fused_stages fused_xpbd fused_main contact finish tiled tether)
  list(APPEND WEFT_KERNEL_HEADERS ${WEFT_KERNEL_DIR}/${_header}.glsl)
endforeach()
find_program(WEFT_GLSLC glslc)
