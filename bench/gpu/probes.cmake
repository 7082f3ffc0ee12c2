# Measuring builds of the Vulkan kernels (docs/PERFORMANCE.md), never for use: a build configured
# with one of these embeds a kernel compiled from bench/gpu/shaders/ in place of the real one, which
# then no longer simulates. Included by cmake/VulkanBackend.cmake; the kernels in src/ hold no probe.
#   WEFT_FUSED_PROBE=N (1..5): the fused XPBD kernel with parts stripped (fused_xpbd_probe.comp:
#     1 no projections, 2 nor record fetches, 3 only the colour loop's barriers, 4 no collision
#     response, 5 nor the substep's acceleration record);
#   WEFT_TILE_PROBE=1: the springs and Jacobi tiles without their neighbour gathers, the tiled
#     design's floor (springs_tiled_probe.comp, jacobi_tiled_probe.comp).
# Each probe source holds copies of its kernel's code with the probe's lines; with the probe's
# define at 0 it must compile to the kernel's SPIR-V word for word. The build checks that
# (WEFT_PROBE_CHECKS), so a probe never measures an older kernel: when the check fails, copy the
# kernel's changed code into the probe source again.
set(WEFT_FUSED_PROBE 0 CACHE STRING "fused XPBD kernel stripped for measurement, bench/gpu/probes.cmake (0: the real kernel)")
set(WEFT_TILE_PROBE 0 CACHE STRING "springs and Jacobi tiles without their gathers, bench/gpu/probes.cmake (0: the real kernels)")

set(_probe_sources ${CMAKE_CURRENT_LIST_DIR}/shaders)
set(_probe_checks ${CMAKE_CURRENT_BINARY_DIR}/vk_probe_checks)

# Kernel KERNEL from bench/gpu/shaders/SOURCE with -DDEFINE=VALUE, and the check that SOURCE with
# -DDEFINE=0 gives the words of src/vulkan/shaders/KERNEL.comp.
function(weft_probe kernel source define value)
  set(_flags -I ${_shader_dir} -D${define}=${value})
  set(WEFT_PROBE_SOURCE_${kernel} ${_probe_sources}/${source} PARENT_SCOPE)
  set(WEFT_PROBE_FLAGS_${kernel} ${_flags} PARENT_SCOPE)
  file(MAKE_DIRECTORY ${_probe_checks})
  set(_real ${_probe_checks}/${kernel}.comp.inc)
  set(_copy ${_probe_checks}/${source}.inc)
  add_custom_command(
    OUTPUT ${_real}
    COMMAND ${WEFT_GLSLC} ${_glslc_flags} -MD -MF ${_real}.d -o ${_real} ${_shader_dir}/${kernel}.comp
    DEPENDS ${_shader_dir}/${kernel}.comp
    DEPFILE ${_real}.d
    COMMENT "glslc ${kernel}.comp (to check ${source})"
    VERBATIM)
  add_custom_command(
    OUTPUT ${_copy}
    COMMAND ${WEFT_GLSLC} ${_glslc_flags} -I ${_shader_dir} -D${define}=0 -MD -MF ${_copy}.d -o ${_copy} ${_probe_sources}/${source}
    DEPENDS ${_probe_sources}/${source}
    DEPFILE ${_copy}.d
    COMMENT "glslc ${source} with ${define}=0"
    VERBATIM)
  add_custom_command(
    OUTPUT ${_copy}.same
    COMMAND ${CMAKE_COMMAND} -E compare_files ${_real} ${_copy}
    COMMAND ${CMAKE_COMMAND} -E touch ${_copy}.same
    DEPENDS ${_real} ${_copy}
    COMMENT "bench/gpu/shaders/${source} with ${define}=0 is ${kernel}.comp word for word (else copy the kernel's code again)"
    VERBATIM)
  set(WEFT_PROBE_CHECKS ${WEFT_PROBE_CHECKS} ${_copy}.same PARENT_SCOPE)
endfunction()

if(NOT WEFT_FUSED_PROBE EQUAL 0)
  if(NOT WEFT_FUSED_PROBE MATCHES "^[1-5]$")
    message(FATAL_ERROR "weft: WEFT_FUSED_PROBE=${WEFT_FUSED_PROBE}: 0 (the real kernel) or 1..5")
  endif()
  weft_probe(fused_xpbd fused_xpbd_probe.comp WF_FUSED_PROBE ${WEFT_FUSED_PROBE})
  message(WARNING "weft: WEFT_FUSED_PROBE=${WEFT_FUSED_PROBE}: the fused XPBD kernel does not simulate (a measuring build)")
endif()
if(NOT WEFT_TILE_PROBE EQUAL 0)
  if(NOT WEFT_TILE_PROBE EQUAL 1)
    message(FATAL_ERROR "weft: WEFT_TILE_PROBE=${WEFT_TILE_PROBE}: 0 (the real kernels) or 1")
  endif()
  weft_probe(springs_tiled springs_tiled_probe.comp WF_TILE_PROBE 1)
  weft_probe(jacobi_tiled jacobi_tiled_probe.comp WF_TILE_PROBE 1)
  message(WARNING "weft: WEFT_TILE_PROBE=1: the springs and Jacobi tiles do not simulate (a measuring build)")
endif()
