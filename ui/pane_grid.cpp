#include "mrwb_ui/pane_grid.hpp"

#include <algorithm>

#include "mrwb_ui/image_view.hpp"

namespace mrwb::ui {

PaneGrid bestPaneGrid(int panes, QSize area, int spacing) {
  PaneGrid best;
  best.imagePx = -1;
  if (panes <= 0) return {0, 0, {}, 0};
  for (int columns = 1; columns <= panes; ++columns) {
    const int rows = (panes + columns - 1) / columns;
    if ((rows - 1) * columns >= panes) continue;  // a row left empty: fewer columns do as well
    const QSize cell((area.width() - (columns - 1) * spacing) / columns, (area.height() - (rows - 1) * spacing) / rows);
    const int image = std::max(0, static_cast<int>(std::min(cell.width() * ImageView::kImageWidthShare,
                                                            cell.height() * ImageView::kImageHeightShare)));
    if (image > best.imagePx) best = {columns, rows, cell, image};
  }
  return best;
}

}  // namespace mrwb::ui
