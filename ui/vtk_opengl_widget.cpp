#include "mrwb_ui/vtk_opengl_widget.hpp"

#include <QMouseEvent>
#include <QOpenGLContext>
#include <QSurfaceFormat>
#include <QWheelEvent>

#include <vtkCommand.h>
#include <vtkOpenGLState.h>
#include <vtkRenderWindowInteractor.h>

namespace mrwb::ui {

VtkOpenGLWidget::VtkOpenGLWidget(QWidget* parent) : QOpenGLWidget(parent) {
  // Qt owns the context; VTK renders into whatever framebuffer Qt has bound (the widget's FBO) and
  // blits its result there at the end of each frame.
  renderWindow_->SetOwnContext(false);
  renderWindow_->SetFrameBlitModeToBlitToCurrent();
  renderWindow_->SetUseOffScreenBuffers(false);
  renderWindow_->SetMultiSamples(0);  // the widget FBO is single-sampled; MSAA would need a resolve
  renderWindow_->SetForceMaximumHardwareLineWidth(1);
  renderWindow_->AddRenderer(renderer_);

  // VTK asks its host to make the context current, to say whether it is, and to show a frame.
  for (unsigned long ev : {static_cast<unsigned long>(vtkCommand::WindowMakeCurrentEvent),
                           static_cast<unsigned long>(vtkCommand::WindowIsCurrentEvent),
                           static_cast<unsigned long>(vtkCommand::WindowFrameEvent)}) {
    renderWindow_->AddObserver(ev, this, &VtkOpenGLWidget::onRenderWindowEvent);
  }

  // Interactor styles call Render() on every drag step; rendering outside paintGL would bypass
  // Qt's framebuffer handling, so we turn those into update() and render only in paintGL.
  interactor_->SetRenderWindow(renderWindow_);
  interactor_->EnableRenderOff();
  interactor_->AddObserver(vtkCommand::RenderEvent, this, &VtkOpenGLWidget::onRenderWindowEvent);

  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(160, 160);
}

VtkOpenGLWidget::~VtkOpenGLWidget() {
  releaseGraphics();
  // The base class destroys the context after this destructor; its aboutToBeDestroyed must not
  // reach this half-destroyed object.
  if (context()) disconnect(context(), nullptr, this, nullptr);
  renderWindow_->RemoveAllObservers();
  interactor_->RemoveAllObservers();
}

void VtkOpenGLWidget::setDefaultSurfaceFormat() {
  QSurfaceFormat fmt;
  fmt.setRenderableType(QSurfaceFormat::OpenGL);
  fmt.setVersion(3, 2);
  fmt.setProfile(QSurfaceFormat::CoreProfile);
  fmt.setSwapBehavior(QSurfaceFormat::DoubleBuffer);
  fmt.setRedBufferSize(8);
  fmt.setGreenBufferSize(8);
  fmt.setBlueBufferSize(8);
  fmt.setAlphaBufferSize(8);
  fmt.setDepthBufferSize(24);
  fmt.setStencilBufferSize(0);
  fmt.setSamples(0);
  QSurfaceFormat::setDefaultFormat(fmt);
}

vtkGenericOpenGLRenderWindow* VtkOpenGLWidget::renderWindow() const { return renderWindow_.Get(); }
vtkGenericRenderWindowInteractor* VtkOpenGLWidget::interactor() const { return interactor_.Get(); }
vtkRenderer* VtkOpenGLWidget::renderer() const { return renderer_.Get(); }

void VtkOpenGLWidget::initializeGL() {
  // A new context (first show, or after reparenting to another top-level window): VTK's GL
  // resources from an old context are invalid, so they are released when that context goes away.
  connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &VtkOpenGLWidget::releaseGraphics,
          Qt::UniqueConnection);
  renderWindow_->SetReadyForRendering(true);
  renderWindow_->OpenGLInitContext();
  glReady_ = true;
  if (!interactor_->GetInitialized()) interactor_->Initialize();
  const qreal dpr = devicePixelRatioF();
  renderWindow_->SetDPI(static_cast<int>(72 * dpr));
}

void VtkOpenGLWidget::resizeGL(int w, int h) {
  const qreal dpr = devicePixelRatioF();
  const int dw = qMax(1, qRound(w * dpr));
  const int dh = qMax(1, qRound(h * dpr));
  interactor_->UpdateSize(dw, dh);  // also sizes the render window
  viewportResized(dw, dh);
}

void VtkOpenGLWidget::paintGL() {
  if (!glReady_) return;
  inPaint_ = true;
  // Qt may have changed GL state (and bound the widget FBO) behind VTK's state cache: resync it,
  // so that VTK restores Qt's framebuffer binding after rendering and blits into it.
  vtkOpenGLState* state = renderWindow_->GetState();
  state->Reset();
  state->Push();
  renderWindow_->Render();
  state->Pop();
  inPaint_ = false;
}

void VtkOpenGLWidget::releaseGraphics() {
  if (!glReady_) return;
  makeCurrent();
  renderWindow_->Finalize();
  doneCurrent();
  glReady_ = false;
}

void VtkOpenGLWidget::onRenderWindowEvent(vtkObject*, unsigned long eventId, void* callData) {
  switch (eventId) {
    case vtkCommand::WindowMakeCurrentEvent:
      // Already current during paintGL: re-making current would rebind the widget FBO under VTK.
      if (QOpenGLContext::currentContext() != context()) makeCurrent();
      break;
    case vtkCommand::WindowIsCurrentEvent:
      *static_cast<bool*>(callData) =
          context() != nullptr && QOpenGLContext::currentContext() == context();
      break;
    case vtkCommand::WindowFrameEvent:
      // Inside paintGL Qt composes the FBO itself; a frame rendered elsewhere needs a repaint.
      if (!inPaint_) update();
      break;
    case vtkCommand::RenderEvent:
      update();
      break;
    default:
      break;
  }
}

void VtkOpenGLWidget::setEventInfo(const QPointF& pos, Qt::KeyboardModifiers mods, int repeat) {
  const qreal dpr = devicePixelRatioF();
  interactor_->SetEventInformationFlipY(qRound(pos.x() * dpr), qRound(pos.y() * dpr),
                                        (mods & Qt::ControlModifier) ? 1 : 0,
                                        (mods & Qt::ShiftModifier) ? 1 : 0, 0, repeat);
  interactor_->SetAltKey((mods & Qt::AltModifier) ? 1 : 0);
}

void VtkOpenGLWidget::mousePressEvent(QMouseEvent* e) {
  setEventInfo(e->position(), e->modifiers(), 0);
  switch (e->button()) {
    case Qt::LeftButton: interactor_->InvokeEvent(vtkCommand::LeftButtonPressEvent); break;
    case Qt::MiddleButton: interactor_->InvokeEvent(vtkCommand::MiddleButtonPressEvent); break;
    case Qt::RightButton: interactor_->InvokeEvent(vtkCommand::RightButtonPressEvent); break;
    default: QOpenGLWidget::mousePressEvent(e); return;
  }
  e->accept();
}

void VtkOpenGLWidget::mouseReleaseEvent(QMouseEvent* e) {
  setEventInfo(e->position(), e->modifiers());
  switch (e->button()) {
    case Qt::LeftButton: interactor_->InvokeEvent(vtkCommand::LeftButtonReleaseEvent); break;
    case Qt::MiddleButton: interactor_->InvokeEvent(vtkCommand::MiddleButtonReleaseEvent); break;
    case Qt::RightButton: interactor_->InvokeEvent(vtkCommand::RightButtonReleaseEvent); break;
    default: QOpenGLWidget::mouseReleaseEvent(e); return;
  }
  e->accept();
}

void VtkOpenGLWidget::mouseMoveEvent(QMouseEvent* e) {
  setEventInfo(e->position(), e->modifiers());
  interactor_->InvokeEvent(vtkCommand::MouseMoveEvent);
  e->accept();
}

void VtkOpenGLWidget::wheelEvent(QWheelEvent* e) {
  setEventInfo(e->position(), e->modifiers());
  const int dy = e->angleDelta().y();
  if (dy > 0) interactor_->InvokeEvent(vtkCommand::MouseWheelForwardEvent);
  if (dy < 0) interactor_->InvokeEvent(vtkCommand::MouseWheelBackwardEvent);
  e->accept();
}

void VtkOpenGLWidget::enterEvent(QEnterEvent* e) {
  setEventInfo(e->position(), e->modifiers());
  interactor_->InvokeEvent(vtkCommand::EnterEvent);
  QOpenGLWidget::enterEvent(e);
}

void VtkOpenGLWidget::leaveEvent(QEvent* e) {
  interactor_->InvokeEvent(vtkCommand::LeaveEvent);
  QOpenGLWidget::leaveEvent(e);
}

}  // namespace mrwb::ui
