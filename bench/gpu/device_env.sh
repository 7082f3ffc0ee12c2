# Sourced by the H200 scripts: the Debian Vulkan loader and the libraries the Debian-built binaries
# need, where they were brought along (.gl/, build-base/lib; README.md), the NVIDIA driver's ICD and
# the device to run on (WEFT_VK_DEVICE, default H200).
if [ -d .gl ]; then
	for f in .gl/*.deb; do dpkg -x "$f" /; done
	ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f $icd ] && export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$icd}
export WEFT_VK_DEVICE=${WEFT_VK_DEVICE:-H200}
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
