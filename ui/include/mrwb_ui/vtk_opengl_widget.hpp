#pragma once
// A QOpenGLWidget that hosts a VTK render window. Debian's VTK Qt module is built for Qt 5, so the
// Qt 6 bridge is ours: VTK renders into Qt's context (vtkGenericOpenGLRenderWindow, no own context)
// and blits its frame into the widget's framebuffer; Qt mouse/wheel events drive a VTK interactor.
#include <QOpenGLWidget>

#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkNew.h>
#include <vtkRenderer.h>

namespace mrwb::ui {

class VtkOpenGLWidget : public QOpenGLWidget {
  Q_OBJECT
 public:
  explicit VtkOpenGLWidget(QWidget* parent = nullptr);
  ~VtkOpenGLWidget() override;

  // VTK's OpenGL2 backend needs a 3.2 core profile; call before the QApplication is created.
  static void setDefaultSurfaceFormat();

  vtkGenericOpenGLRenderWindow* renderWindow() const;
  vtkGenericRenderWindowInteractor* interactor() const;
  vtkRenderer* renderer() const;

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;

  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void enterEvent(QEnterEvent* e) override;
  void leaveEvent(QEvent* e) override;

  // Hook for subclasses: the viewport changed size (device pixels), e.g. to refit a camera.
  virtual void viewportResized(int /*w*/, int /*h*/) {}

 private:
  void onRenderWindowEvent(vtkObject* caller, unsigned long eventId, void* callData);
  void releaseGraphics();
  // Passes the Qt mouse position (logical pixels) and modifiers to the interactor in device pixels.
  void setEventInfo(const QPointF& pos, Qt::KeyboardModifiers mods, int repeat = 0);

  vtkNew<vtkGenericOpenGLRenderWindow> renderWindow_;
  vtkNew<vtkGenericRenderWindowInteractor> interactor_;
  vtkNew<vtkRenderer> renderer_;
  bool inPaint_ = false;
  bool glReady_ = false;
};

}  // namespace mrwb::ui
