#include "window/banner.hpp"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

#include <algorithm>
#include <utility>

namespace kms::ui {

Banner::Banner(QWidget* centre) : QFrame(centre) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    label_ = new QLabel(this);
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* dismiss_button = new QToolButton(this);
    dismiss_button->setText(QStringLiteral("✕"));
    dismiss_button->setToolTip(tr("Dismiss"));
    dismiss_button->setAutoRaise(true);
    connect(dismiss_button, &QToolButton::clicked, this, &Banner::dismiss);
    action_ = new QPushButton(this);
    action_->setObjectName(QStringLiteral("bannerAction"));
    action_->hide();
    connect(action_, &QPushButton::clicked, this, [this] {
        const std::function<void()> confirmed = std::exchange(confirmed_, {});
        declined_ = {};
        dismiss();
        if (confirmed) confirmed();
    });
    layout->addWidget(label_, 1);
    layout->addWidget(action_);
    layout->addWidget(dismiss_button);
    hide();
    setAutoFillBackground(true);
    centre->installEventFilter(this);  // keeps the banner across the top on resize
}

bool Banner::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize && watched == parent() && !isHidden()) place();
    return QFrame::eventFilter(watched, event);
}

void Banner::ask(const QString& message, const QString& action, std::function<void()> confirmed,
                 std::function<void()> declined) {
    if (declined_) std::exchange(declined_, {})();  // an older question is answered "no"
    show_message(message, false);
    action_->setText(action);
    action_->show();
    confirmed_ = std::move(confirmed);
    declined_ = std::move(declined);
    place();
}

bool Banner::confirm() {
    if (action_->isHidden()) return false;
    action_->click();
    return true;
}

void Banner::show_message(const QString& message, bool error) {
    if (declined_) std::exchange(declined_, {})();  // a question replaced: "no"
    confirmed_ = {};
    action_->hide();
    error_ = error;
    label_->setText(error ? tr("Error: %1").arg(message) : message);
    setStyleSheet(error ? QStringLiteral("QFrame { background: #fde2e1; color: #7a1111; }")
                        : QStringLiteral("QFrame { background: #fff4cc; color: #4a3b00; }"));
    show();
    place();
}

void Banner::place() {
    const QWidget* centre = parentWidget();
    const int height = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(centre->width()) : sizeHint().height();
    setGeometry(0, 0, centre->width(), std::max(height, sizeHint().height()));
    raise();
}

QString Banner::text() const { return isHidden() ? QString() : label_->text(); }

void Banner::dismiss() {
    hide();
    error_ = false;
    action_->hide();
    confirmed_ = {};
    if (declined_) std::exchange(declined_, {})();
}

}  // namespace kms::ui
