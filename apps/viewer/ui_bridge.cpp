// The control panel in Dear ImGui, behind the C interface of ui_bridge.h. The only C++ in the viewer:
// it builds the panel from a ViewParams and records ImGui's draw data into the viewer's render pass.
#include "ui_bridge.h"

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_vulkan.h>

#include <GLFW/glfw3.h>

#include <cmath>
#include <cstdio>

namespace {

struct Bridge {
	bool created = false;
	ImVec2 panelPos = ImVec2(0.0f, 0.0f);
	ImVec2 panelSize = ImVec2(0.0f, 0.0f);
	VkResult lastError = VK_SUCCESS;
};

Bridge g_bridge; // ImGui itself keeps one global context; the bridge's state sits beside it

void CheckVk(VkResult r)
{
	if (r != VK_SUCCESS) {
		if (g_bridge.lastError == VK_SUCCESS)
			g_bridge.lastError = r;
		std::fprintf(stderr, "weft-view: the UI's Vulkan backend got VkResult %d\n", (int)r);
	}
}

const char* const kSolvers[] = {"xpbd", "jacobi", "springs"};
const char* const kWind[] = {"none", "gust", "wave"};
const char* const kPins[] = {"none", "top corners", "top row", "corners", "list"};
const char* const kColors[] = {"texture", "speed", "strain"};
// The views by the library's own names.
const char* const kViews[] = {wfViewModeName(WF_VIEW_CLOTH), wfViewModeName(WF_VIEW_NODES), wfViewModeName(WF_VIEW_BOTH)};

// A slider over [lo, hi] on a logarithmic scale, with 0 allowed (rigid) from the checkbox-free end.
bool SliderLog(const char* label, float* v, float lo, float hi, const char* fmt)
{
	return ImGui::SliderFloat(label, v, lo, hi, fmt, ImGuiSliderFlags_Logarithmic);
}

bool ComboEnum(const char* label, int* value, const char* const* names, int count)
{
	return ImGui::Combo(label, value, names, count);
}

void Readouts(const UiReadouts* r)
{
	ImGui::TextWrapped("%s", r->source);
	ImGui::Text("frame %.1f ms (%.0f fps)", r->frameMs, r->frameMs > 0.0 ? 1000.0 / r->frameMs : 0.0);
	ImGui::Text("simulation %.2f ms/frame, %d step%s", r->simMs, r->stepsPerFrame, r->stepsPerFrame == 1 ? "" : "s");
	ImGui::Text("render %.1f ms, t = %.2f s%s", r->renderMs, r->simTime, r->paused ? "  PAUSED" : "");
	ImGui::Text("%d particles, %d constraints", r->particles, r->constraints);
	ImGui::Text("%d colours, %d triangles", r->colors, r->triangles);
	if (r->gpuMs >= 0.0)
		ImGui::Text("GPU %.3f ms/frame, %d dispatch%s", r->gpuMs, r->dispatches, r->dispatches == 1 ? "" : "es");
	// Per stage: GPU timestamps on Vulkan (they add up to the GPU time), the wall clock on the CPU.
	if (r->stageMs[0] >= 0.0) {
		ImGui::Text("stages, %s ms/frame:", r->gpuMs >= 0.0 ? "GPU" : "CPU");
		if (ImGui::BeginTable("stages", 4, ImGuiTableFlags_SizingStretchProp)) {
			for (int k = 0; k < WF_STAGE_COUNT; ++k) {
				ImGui::TableNextColumn();
				ImGui::Text(" %s", wfStageName((wfStage)k));
				ImGui::TableNextColumn();
				ImGui::Text("%.3f", r->stageMs[k]);
			}
			ImGui::EndTable();
		}
	}
}

void Devices(const UiReadouts* r)
{
	ImGui::TextWrapped("simulation: %s (%s)", r->simDevice, r->backend);
	ImGui::TextWrapped("render: %s", r->renderDevice);
	ImGui::TextWrapped("window: %s", r->windowDevice);
}

void Simulation(ViewParams* p)
{
	int solver = (int)p->step.solver;
	if (ComboEnum("solver", &solver, kSolvers, 3))
		p->step.solver = (wfSolverType)solver;
	ImGui::SliderInt("substeps", &p->step.substeps, 1, 128);
	ImGui::SliderInt("iterations", &p->step.iterations, 1, 32);
	float ms = p->step.timeStep * 1000.0f;
	if (ImGui::SliderFloat("time step ms", &ms, 0.5f, 50.0f, "%.2f", ImGuiSliderFlags_Logarithmic))
		p->step.timeStep = ms / 1000.0f;
}

void Material(wfMaterial* m, wfSolverType solver)
{
	ImGui::SliderFloat("mass", &m->mass, 0.001f, 10.0f, "%.3f kg", ImGuiSliderFlags_Logarithmic);
	switch (solver) {
	case WF_SOLVER_XPBD:
		SliderLog("stretch compl.", &m->stretchCompliance, 0.0f, 1.0f, "%.2e");
		SliderLog("shear compl.", &m->shearCompliance, 0.0f, 1.0f, "%.2e");
		SliderLog("bend compl.", &m->bendCompliance, 0.0f, 10.0f, "%.2e");
		ImGui::SliderFloat("damping", &m->damping, 0.0f, 10.0f, "%.3f kg/s");
		break;
	case WF_SOLVER_JACOBI:
		ImGui::SliderFloat("relaxation", &m->relaxation, 0.0f, 0.99f); // [0, 1): weft.h
		ImGui::SliderFloat("retention", &m->retention, 0.9f, 1.0f, "%.4f");
		break;
	case WF_SOLVER_SPRINGS:
		ImGui::SliderFloat("stiffness", &m->stiffness, 1.0f, 1e5f, "%.0f N/m", ImGuiSliderFlags_Logarithmic);
		ImGui::SliderFloat("spring damping", &m->springDamping, 0.0f, 10.0f, "%.3f");
		break;
	}
	// Tearing, every solver: 0 never tears (the slider's left end).
	ImGui::SliderFloat("tear strain", &m->tearStrain, 0.0f, 2.0f, m->tearStrain > 0.0f ? "%.3f" : "off");
}

// Self-collision and cloth against cloth: the world's switches and contact (wfWorld_SetSelfCollision).
void SelfCollision(ViewParams* p)
{
	ImGui::Checkbox("self-collision", &p->selfCollision.enabled);
	ImGui::SameLine();
	ImGui::Checkbox("between cloths", &p->selfCollision.betweenCloths);
	ImGui::SliderFloat("thickness", &p->selfCollision.thickness, 0.001f, 0.1f, "%.4f m", ImGuiSliderFlags_Logarithmic);
	ImGui::SliderFloat("contact friction", &p->selfCollision.friction, 0.0f, 2.0f, "%.2f");
}

void Forces(ViewParams* p)
{
	ImGui::SliderFloat("gravity y", &p->gravity.y, -50.0f, 10.0f, "%.2f m/s2");
	int wind = (int)p->wind.mode;
	if (ComboEnum("wind", &wind, kWind, 3))
		p->wind.mode = (wfWindMode)wind;
	ImGui::SliderFloat("wind strength", &p->wind.strength, 0.0f, 20.0f);
	ImGui::SliderFloat("wind frequency", &p->wind.frequency, 0.0f, 5.0f, "%.2f Hz");
}

void Colliders(ViewParams* p)
{
	ImGui::Checkbox("sphere", &p->sphere.enabled);
	ImGui::SameLine();
	ImGui::Checkbox("moving (S)", &p->sphere.moving);
	ImGui::SliderFloat("sphere radius", &p->sphere.radius, 0.05f, 3.0f);
	ImGui::Checkbox("floor", &p->floor.enabled);
	ImGui::SliderFloat("floor height", &p->floor.height, -5.0f, 2.0f);
}

// Grid density rebuilds the cloth, so it is applied when the slider is released, not while dragging.
void Cloth(ViewClothParams* c, int* clothIndex, int clothCount, wfSolverType solver)
{
	if (clothCount > 1)
		ImGui::SliderInt("cloth", clothIndex, 0, clothCount - 1);
	static int grid[2] = {0, 0};
	static bool editing = false;
	if (!editing) {
		grid[0] = c->cols;
		grid[1] = c->rows;
	}
	ImGui::SliderInt2("grid", grid, 2, 128);
	editing = ImGui::IsItemActive();
	if (ImGui::IsItemDeactivatedAfterEdit()) {
		c->cols = grid[0];
		c->rows = grid[1];
	}
	int pin = (int)c->pinMode;
	if (ComboEnum("pins", &pin, kPins, 5))
		c->pinMode = (wfPinMode)pin;
	Material(&c->material, solver);
}

} // namespace

extern "C" {

bool UiCreate(GLFWwindow* window, const PresenterInfo* info, char* error, int errorSize)
{
	IMGUI_CHECKVERSION();
	ImGui::CreateContext();
	ImGuiIO& io = ImGui::GetIO();
	io.IniFilename = nullptr; // no imgui.ini beside wherever the viewer was started
	ImGui::StyleColorsDark();
	ImGui::GetStyle().WindowRounding = 4.0f;
	if (!ImGui_ImplGlfw_InitForVulkan(window, false)) {
		std::snprintf(error, (size_t)errorSize, "ImGui's GLFW backend failed to start");
		ImGui::DestroyContext();
		return false;
	}
	ImGui_ImplVulkan_InitInfo vk = {};
	vk.Instance = info->instance;
	vk.PhysicalDevice = info->physicalDevice;
	vk.Device = info->device;
	vk.QueueFamily = info->queueFamily;
	vk.Queue = info->queue;
	vk.DescriptorPool = info->descriptorPool;
	vk.Subpass = 0;
	vk.MinImageCount = info->minImageCount < 2 ? 2 : info->minImageCount;
	vk.ImageCount = info->imageCount < vk.MinImageCount ? vk.MinImageCount : info->imageCount;
	vk.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
	vk.CheckVkResultFn = CheckVk;
	if (!ImGui_ImplVulkan_Init(&vk, info->renderPass) || g_bridge.lastError != VK_SUCCESS) {
		std::snprintf(error, (size_t)errorSize, "ImGui's Vulkan backend failed to start (VkResult %d)", (int)g_bridge.lastError);
		ImGui_ImplGlfw_Shutdown();
		ImGui::DestroyContext();
		return false;
	}
	g_bridge.created = true;
	return true;
}

void UiDestroy(void)
{
	if (!g_bridge.created)
		return;
	ImGui_ImplVulkan_Shutdown();
	ImGui_ImplGlfw_Shutdown();
	ImGui::DestroyContext();
	g_bridge.created = false;
}

void UiRecordFontUpload(VkCommandBuffer cmd, void* context)
{
	(void)context;
	ImGui_ImplVulkan_CreateFontsTexture(cmd);
}

void UiFontUploadDone(void) { ImGui_ImplVulkan_DestroyFontUploadObjects(); }
void UiSetMinImageCount(uint32_t count) { ImGui_ImplVulkan_SetMinImageCount(count < 2 ? 2 : count); }

void UiMouseButtonCallback(GLFWwindow* w, int button, int action, int mods) { ImGui_ImplGlfw_MouseButtonCallback(w, button, action, mods); }
void UiScrollCallback(GLFWwindow* w, double dx, double dy) { ImGui_ImplGlfw_ScrollCallback(w, dx, dy); }
void UiKeyCallback(GLFWwindow* w, int key, int scancode, int action, int mods) { ImGui_ImplGlfw_KeyCallback(w, key, scancode, action, mods); }
void UiCharCallback(GLFWwindow* w, unsigned int c) { ImGui_ImplGlfw_CharCallback(w, c); }
void UiFocusCallback(GLFWwindow* w, int focused) { ImGui_ImplGlfw_WindowFocusCallback(w, focused); }
void UiCursorEnterCallback(GLFWwindow* w, int entered) { ImGui_ImplGlfw_CursorEnterCallback(w, entered); }
bool UiWantsMouse(void) { return ImGui::GetIO().WantCaptureMouse; }
bool UiWantsKeyboard(void) { return ImGui::GetIO().WantCaptureKeyboard; }

bool UiPanelContains(double x, double y)
{
	const ImVec2 p = g_bridge.panelPos, s = g_bridge.panelSize;
	return x >= p.x && y >= p.y && x < p.x + s.x && y < p.y + s.y;
}

void UiPanelRect(double rect[4])
{
	rect[0] = g_bridge.panelPos.x;
	rect[1] = g_bridge.panelPos.y;
	rect[2] = g_bridge.panelSize.x;
	rect[3] = g_bridge.panelSize.y;
}

int UiFrame(ViewParams* p, int* clothIndex, const UiReadouts* r, bool scripted, double mouseX, double mouseY, bool mouseDown)
{
	ImGui_ImplVulkan_NewFrame();
	ImGui_ImplGlfw_NewFrame();
	ImGuiIO& io = ImGui::GetIO();
	if (scripted) {
		// The script's mouse, not the (virtual) display's pointer.
		io.MousePos = ImVec2((float)mouseX, (float)mouseY);
		for (int i = 0; i < 5; ++i)
			io.MouseDown[i] = i == 0 && mouseDown;
		io.DeltaTime = 1.0f / 60.0f; // script frames are steps, not wall time
	}
	ImGui::NewFrame();
	int actions = 0;
	ImGui::SetNextWindowPos(ImVec2(8.0f, 8.0f), ImGuiCond_FirstUseEver);
	ImGui::SetNextWindowSize(ImVec2(270.0f, io.DisplaySize.y - 16.0f), ImGuiCond_FirstUseEver);
	ImGui::SetNextWindowSizeConstraints(ImVec2(160.0f, 60.0f), ImVec2(io.DisplaySize.x, io.DisplaySize.y - 16.0f));
	ImGui::SetNextWindowBgAlpha(0.82f);
	if (ImGui::Begin("weft-view")) {
		ImGui::PushItemWidth(-110.0f);
		if (ImGui::Button(r->paused ? "Run (Space)" : "Pause (Space)"))
			actions |= UI_ACTION_PAUSE;
		ImGui::SameLine();
		if (ImGui::Button("Reset cloth"))
			actions |= UI_ACTION_RESET_CLOTH;
		if (ImGui::Button("Reset params"))
			actions |= UI_ACTION_RESET_PARAMS;
		ImGui::SameLine();
		if (ImGui::Button("Reset view"))
			actions |= UI_ACTION_RESET_VIEW;
		if (r->status != nullptr && r->status[0] != 0)
			ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", r->status);
		if (ImGui::CollapsingHeader("Read-outs", ImGuiTreeNodeFlags_DefaultOpen))
			Readouts(r);
		if (ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen))
			Simulation(p);
		if (*clothIndex < 0 || *clothIndex >= p->clothCount)
			*clothIndex = 0;
		if (ImGui::CollapsingHeader("Cloth", ImGuiTreeNodeFlags_DefaultOpen))
			Cloth(&p->cloth[*clothIndex], clothIndex, p->clothCount, p->step.solver);
		if (ImGui::CollapsingHeader("Forces", ImGuiTreeNodeFlags_DefaultOpen))
			Forces(p);
		if (ImGui::CollapsingHeader("Colliders"))
			Colliders(p);
		if (ImGui::CollapsingHeader("Self-collision"))
			SelfCollision(p);
		if (ImGui::CollapsingHeader("Display", ImGuiTreeNodeFlags_DefaultOpen)) {
			int color = (int)p->colorMode;
			if (ComboEnum("colour (M)", &color, kColors, 3))
				p->colorMode = (wfColorMode)color;
			int view = (int)p->view;
			if (ComboEnum("view (V)", &view, kViews, 3))
				p->view = (wfViewMode)view;
			ImGui::Checkbox("wireframe (W)", &p->wireframe);
			ImGui::TextDisabled("drag: orbit / grab a node");
			ImGui::TextDisabled("shift-drag pan, alt-drag/scroll zoom");
			ImGui::TextDisabled("S sphere, R reset, C view");
		}
		if (ImGui::CollapsingHeader("Devices", ImGuiTreeNodeFlags_DefaultOpen))
			Devices(r);
		ImGui::PopItemWidth();
	}
	g_bridge.panelPos = ImGui::GetWindowPos();
	g_bridge.panelSize = ImGui::GetWindowSize();
	ImGui::End();
	ImGui::Render();
	return actions;
}

void UiDraw(VkCommandBuffer cmd, void* context)
{
	(void)context;
	ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), cmd);
}

VkResult UiVulkanError(void) { return g_bridge.lastError; }

} // extern "C"
