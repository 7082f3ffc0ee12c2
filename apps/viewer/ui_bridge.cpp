// The control panel in Dear ImGui, behind the C interface of ui_bridge.h. The only C++ in the viewer:
// it builds the panel from a ViewParams and records ImGui's draw data into the viewer's render pass.
#include "ui_bridge.h"
#include "weft_fields.h"

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_vulkan.h>

#include <GLFW/glfw3.h>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace
{

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

// The colour modes and views by the library's own names.
const char* const kColors[WF_COLOR_MODE_COUNT] = {wfColorModeName(WF_COLOR_TEXTURE), wfColorModeName(WF_COLOR_SPEED),
	wfColorModeName(WF_COLOR_STRAIN)};
const char* const kViews[WF_VIEW_MODE_COUNT] = {wfViewModeName(WF_VIEW_CLOTH), wfViewModeName(WF_VIEW_NODES), wfViewModeName(WF_VIEW_BOTH)};

// The library's table entry of a def field: the controls' kinds, ranges, scales, names and labels
// come from there (wfFindDefField), not from copies here.
const wfFieldInfo* Field(wfDefType def, const char* path) { return wfFindDefField(def, path); }

ImGuiSliderFlags Scale(const wfFieldInfo* f)
{
	return (f->flags & WF_FIELD_LOG) != 0 ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None;
}

// One control of the panel: a def field that the panel edits (ViewParamAt), by its path.
struct Row {
	wfDefType def;
	const char* path;
	const char* format; // a slider's number format (a unit), or nullptr
};

// The member's name in words; a group's switch or mode is named by the group ("sphere", "wind").
void Label(const Row& r, const wfFieldInfo* f, char* out, size_t size)
{
	const char* dot = std::strrchr(r.path, '.');
	wfFieldInfo named = *f;
	char group[64];
	if (dot != nullptr && (std::strcmp(f->name, "enabled") == 0 || std::strcmp(f->name, "mode") == 0)) {
		std::snprintf(group, sizeof group, "%.*s", (int)(dot - r.path), r.path);
		named.name = group;
	}
	char words[96];
	wfFieldsLabel(&named, words, sizeof words);
	std::snprintf(out, size, "%s##%s", words, r.path); // the path keeps ImGui's ids apart
}

// The control by the field's type: a checkbox, a slider over the ui range (else the whole range),
// logarithmic where the table says so, or a combo of the enum's names.
void Control(ViewParams* p, int cloth, const Row& r)
{
	const wfFieldInfo* f = nullptr;
	void* at = ViewParamAt(p, cloth, r.def, r.path, &f);
	if (at == nullptr)
		return;
	char label[160];
	Label(r, f, label, sizeof label);
	bool ui = f->uiMin != 0.0f || f->uiMax != 0.0f;
	float lo = ui ? f->uiMin : f->min, hi = ui ? f->uiMax : f->max;
	int n;
	switch (f->type) {
	case WF_FIELD_BOOL: ImGui::Checkbox(label, (bool*)at); break;
	case WF_FIELD_INT: ImGui::SliderInt(label, (int*)at, (int)lo, (int)hi); break;
	case WF_FIELD_FLOAT: ImGui::SliderFloat(label, (float*)at, lo, hi, r.format != nullptr ? r.format : "%.3f", Scale(f)); break;
	case WF_FIELD_ENUM:
		std::memcpy(&n, at, sizeof n); // the def's enum, stored as an int
		if (ImGui::Combo(label, &n, f->enumNames, f->enumCount))
			std::memcpy(at, &n, sizeof n);
		break;
	default: break;
	}
}

template <size_t N> void Rows(ViewParams* p, int cloth, const Row (&rows)[N])
{
	for (const Row& r : rows)
		Control(p, cloth, r);
}

// The panel's parameters by section: which fields it shows; everything else is the table's.
const Row kSimulation[] = {{WF_DEF_WORLD, "step.solver", nullptr}, {WF_DEF_WORLD, "step.substeps", nullptr},
	{WF_DEF_WORLD, "step.iterations", nullptr}};
const Row kPinRow[] = {{WF_DEF_CLOTH, "pinMode", nullptr}};
const Row kMaterialAll[] = {{WF_DEF_CLOTH, "material.mass", "%.3f kg"}};
const Row kMaterialXpbd[] = {{WF_DEF_CLOTH, "material.stretchCompliance", "%.2e"}, {WF_DEF_CLOTH, "material.shearCompliance", "%.2e"},
	{WF_DEF_CLOTH, "material.bendCompliance", "%.2e"}, {WF_DEF_CLOTH, "material.damping", "%.3f kg/s"}};
const Row kMaterialJacobi[] = {{WF_DEF_CLOTH, "material.relaxation", nullptr}, {WF_DEF_CLOTH, "material.retention", "%.4f"}};
const Row kMaterialSprings[] = {{WF_DEF_CLOTH, "material.stiffness", "%.0f N/m"}, {WF_DEF_CLOTH, "material.springDamping", nullptr}};
const Row kTearing[] = {{WF_DEF_CLOTH, "material.tearStrain", nullptr}}; // every solver; 0 never tears
const Row kSelfCollision[] = {{WF_DEF_WORLD, "selfCollision.enabled", nullptr}, {WF_DEF_WORLD, "selfCollision.betweenCloths", nullptr},
	{WF_DEF_WORLD, "selfCollision.thickness", "%.4f m"}, {WF_DEF_WORLD, "selfCollision.friction", "%.2f"}};
const Row kWind[] = {{WF_DEF_WORLD, "wind.mode", nullptr}, {WF_DEF_WORLD, "wind.strength", nullptr},
	{WF_DEF_WORLD, "wind.frequency", "%.2f Hz"}};
const Row kColliders[] = {{WF_DEF_WORLD, "sphere.enabled", nullptr}, {WF_DEF_WORLD, "sphere.moving", nullptr},
	{WF_DEF_WORLD, "sphere.radius", nullptr}, {WF_DEF_WORLD, "floor.enabled", nullptr}, {WF_DEF_WORLD, "floor.height", nullptr}};

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
	Rows(p, 0, kSimulation);
	// The time step in ms: the field's range in seconds, shown times 1000.
	const wfFieldInfo* dt = Field(WF_DEF_STEP, "timeStep");
	float ms = p->step.timeStep * 1000.0f;
	if (ImGui::SliderFloat("time step ms", &ms, dt->uiMin * 1000.0f, dt->uiMax * 1000.0f, "%.2f", Scale(dt)))
		p->step.timeStep = ms / 1000.0f;
}

// Self-collision and cloth against cloth: the world's switches and contact (wfWorld_SetSelfCollision).
void SelfCollision(ViewParams* p) { Rows(p, 0, kSelfCollision); }

void Forces(ViewParams* p)
{
	// Gravity's y alone: one slider over the vector's ui range.
	const wfFieldInfo* g = Field(WF_DEF_WORLD, "gravity");
	ImGui::SliderFloat("gravity y", &p->gravity.y, g->uiMin, g->uiMax, "%.2f m/s2", Scale(g));
	Rows(p, 0, kWind);
}

void Colliders(ViewParams* p) { Rows(p, 0, kColliders); }

// Grid density rebuilds the cloth, so it is applied when the slider is released, not while dragging.
void Cloth(ViewParams* p, int* clothIndex, wfSolverType solver)
{
	if (p->clothCount > 1)
		ImGui::SliderInt("cloth", clothIndex, 0, p->clothCount - 1);
	ViewClothParams* c = &p->cloth[*clothIndex];
	static int grid[2] = {0, 0};
	static bool editing = false;
	if (!editing) {
		grid[0] = c->cols;
		grid[1] = c->rows;
	}
	const wfFieldInfo* cols = Field(WF_DEF_CLOTH, "cols"); // rows has the same range
	ImGui::SliderInt2("grid", grid, (int)cols->uiMin, (int)cols->uiMax);
	editing = ImGui::IsItemActive();
	if (ImGui::IsItemDeactivatedAfterEdit()) {
		c->cols = grid[0];
		c->rows = grid[1];
	}
	Rows(p, *clothIndex, kPinRow);
	Rows(p, *clothIndex, kMaterialAll);
	switch (solver) {
	case WF_SOLVER_XPBD: Rows(p, *clothIndex, kMaterialXpbd); break;
	case WF_SOLVER_JACOBI: Rows(p, *clothIndex, kMaterialJacobi); break;
	case WF_SOLVER_SPRINGS: Rows(p, *clothIndex, kMaterialSprings); break;
	}
	Rows(p, *clothIndex, kTearing);
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
void UiKeyCallback(GLFWwindow* w, int key, int scancode, int action, int mods)
{
	ImGui_ImplGlfw_KeyCallback(w, key, scancode, action, mods);
}
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
			Cloth(p, clothIndex, p->step.solver);
		if (ImGui::CollapsingHeader("Forces", ImGuiTreeNodeFlags_DefaultOpen))
			Forces(p);
		if (ImGui::CollapsingHeader("Colliders"))
			Colliders(p);
		if (ImGui::CollapsingHeader("Self-collision"))
			SelfCollision(p);
		if (ImGui::CollapsingHeader("Display", ImGuiTreeNodeFlags_DefaultOpen)) {
			int color = (int)p->colorMode;
			if (ImGui::Combo("colour (M)", &color, kColors, WF_COLOR_MODE_COUNT))
				p->colorMode = (wfColorMode)color;
			int view = (int)p->view;
			if (ImGui::Combo("view (V)", &view, kViews, WF_VIEW_MODE_COUNT))
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
