#pragma once
// Where a grid of equal image panes goes in an area: the column count that gives each image the most pixels.
// Panes fill the grid in reading order (a method's image, error map and g-factor map stay side by side).
#include <QSize>

namespace mrwb::ui {

struct PaneGrid {
  int columns = 1, rows = 1;
  QSize cell;          // each pane's size [px]
  int imagePx = 0;     // the side of a square image fitted in a pane (ImageView's shares of width and height)
};

// The best grid of `panes` panes over `area` with `spacing` px between cells; panes <= 0 gives an empty grid.
PaneGrid bestPaneGrid(int panes, QSize area, int spacing);

}  // namespace mrwb::ui
