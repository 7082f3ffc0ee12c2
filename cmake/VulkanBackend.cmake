# Vulkan backend: compiles the GLSL kernels (cmake/Kernels.cmake) with glslc into SPIR-V words
# (C initialisers) that src/vulkan/vk_device.c embeds. Without the Vulkan headers or glslc the
# backend is left out (every WEFT_VULKAN_* variable stays empty) and the build goes on with the CPU
# solver only.
set(WEFT_VULKAN_SOURCES "")
set(WEFT_VULKAN_INCLUDES "")
set(WEFT_VULKAN_DEFINES "")
set(WEFT_VULKAN_LIBS "")
set(WEFT_VULKAN_DEPENDS "")

find_path(WEFT_VULKAN_INCLUDE_DIR vulkan/vulkan.h)
if(NOT WEFT_VULKAN_INCLUDE_DIR OR NOT WEFT_GLSLC)
  set(_missing "")
  if(NOT WEFT_VULKAN_INCLUDE_DIR)
    list(APPEND _missing "the Vulkan headers (vulkan/vulkan.h, Debian package libvulkan-dev)")
  endif()
  if(NOT WEFT_GLSLC)
    list(APPEND _missing "glslc (Debian package glslc)")
  endif()
  list(JOIN _missing " and " _missing)
  message(STATUS "weft: Vulkan backend disabled: ${_missing} not found")
  return()
endif()

set(_shader_dir ${WEFT_KERNEL_DIR})
set(_spv_dir ${CMAKE_CURRENT_BINARY_DIR}/vk_shaders)
file(MAKE_DIRECTORY ${_spv_dir})
set(_glslc_flags --target-env=vulkan1.0 -O -Werror -mfmt=num -I ${PROJECT_SOURCE_DIR}/src/gpu)
# A measuring build compiles a few kernels from bench/gpu/shaders/ instead (bench/gpu/probes.cmake:
# cmake -DWEFT_FUSED_PROBE=N, -DWEFT_TILE_PROBE=1): it names their sources and flags
# (WEFT_PROBE_SOURCE_<kernel>, WEFT_PROBE_FLAGS_<kernel>) and the checks of its copies
# (WEFT_PROBE_CHECKS). The kernels here hold no probe.
set(WEFT_PROBE_CHECKS "")
include(${PROJECT_SOURCE_DIR}/bench/gpu/probes.cmake OPTIONAL)
set(_outputs "")
foreach(kernel ${WEFT_KERNELS})
  set(_src ${_shader_dir}/${kernel}.comp)
  set(_out ${_spv_dir}/${kernel}.comp.inc)
  set(_defs "")
  if(WEFT_PROBE_SOURCE_${kernel})
    set(_src ${WEFT_PROBE_SOURCE_${kernel}})
    set(_defs ${WEFT_PROBE_FLAGS_${kernel}})
  endif()
  get_filename_component(_name ${_src} NAME)
  add_custom_command(
    OUTPUT ${_out}
    COMMAND ${WEFT_GLSLC} ${_glslc_flags} ${_defs} -MD -MF ${_out}.d -o ${_out} ${_src}
    DEPENDS ${_src} ${WEFT_KERNEL_HEADERS}
    DEPFILE ${_out}.d
    COMMENT "glslc ${_name}"
    VERBATIM)
  list(APPEND _outputs ${_out})
endforeach()
add_custom_target(weft_vk_shaders DEPENDS ${_outputs} ${WEFT_PROBE_CHECKS})

set(WEFT_VULKAN_SOURCES
  src/vulkan/vk_device.c
  src/vulkan/vk_backend.c
  src/vulkan/vk_cloth.c
  src/vulkan/vk_record.c
  src/vulkan/vk_mesh.c
  src/vulkan/vk_interop.c)
set(WEFT_VULKAN_INCLUDES ${WEFT_VULKAN_INCLUDE_DIR} ${_spv_dir})
set(WEFT_VULKAN_DEFINES WEFT_HAVE_VULKAN)
set(WEFT_VULKAN_LIBS ${CMAKE_DL_LIBS})
set(WEFT_VULKAN_DEPENDS weft_vk_shaders)
message(STATUS "weft: Vulkan backend enabled (glslc: ${WEFT_GLSLC})")
