import { type ReactNode, useEffect, useRef } from "react";

/**
 * A modal `<dialog>` shown while it is mounted: focus moves in, Escape or a click on the backdrop closes it,
 * and focus goes back to what had it before (the history of a compaction, its diff).
 */
export function ModalDialog({
  className,
  testId,
  titleId,
  onClose,
  children,
}: {
  className: string;
  testId: string;
  /** Id of the heading that names the dialog. */
  titleId: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    // The dialog leaves by unmounting, not close(), so the browser gives focus back to nothing: do it.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={dialog}
      className={`panel ${className}`}
      data-testid={testId}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop lands on the dialog element itself, outside its content box.
        if (event.target === event.currentTarget) onClose();
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") onClose();
      }}
    >
      {children}
    </dialog>
  );
}
